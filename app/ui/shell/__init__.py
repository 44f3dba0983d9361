"""The shell: app start, main window from the table of areas, the one error presenter, tasks."""
