"""Dawnboard's benchmark rules in plain Python, with no Django: the one source every app builds on.

- `rules`: the tasks and their versions (metric, log column, scale, threshold, source), and `Track`;
- `metrics`: the four leaderboard metrics;
- `scoring`: units, first crossing, time to accuracy and every cost formula;
- `formats`: the DAWNBench v1.0 entry JSON and TSV log, read and written;
- `validation`: the rules applied to parsed documents, with every result recomputed;
- `ingest`: bytes in, a verdict out (a format's readers bound to validation);
- `errors`: the stable error and warning codes; `results`: the recomputed figures and their JSON shape.
"""
