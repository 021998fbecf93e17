"""What the systems under test speak (Hadoop's job client, HiveQL), shared by targets and workloads.

Below both: the targets that run steps and the workloads that build and parse them import from
here, never from each other's internals.
"""
