"""What testers and the project's own test runs and benchmarks use to drive the desk without
touching the user's files."""
