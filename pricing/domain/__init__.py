"""Pricing domain logic, plain Python: the catalog's rows, hardware resolution, cost policies, footprint."""
