"""Readers and writers of the entry and log formats Dawnboard takes: DAWNBench v1.0 today."""
