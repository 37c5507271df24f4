"""Two instances behind nginx, one killed under load (Tests/Faults/two_instances_test.py), split by job."""
