"""The rider app's browser test (Tests/Browser/rider_app_test.py), split by job; see that file's docstring."""
