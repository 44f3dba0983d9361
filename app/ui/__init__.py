"""Qt only: windows, dialogs, table models and the one error presenter. No HTTP here."""
