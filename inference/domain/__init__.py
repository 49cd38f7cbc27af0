"""Plain Python: latency statistics."""
