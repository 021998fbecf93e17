"""What the systems under test speak (Hadoop's job client, HiveQL), shared by transport and workloads.

Below both: the transport that runs steps and the workloads that build and parse them import from
here, never from each other's internals.
"""
