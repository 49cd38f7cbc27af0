"""The algorithm track's rules, in AlgoPerf's manner (MLCommons, "Benchmarking Neural Network Training Algorithms",
Dahl et al. 2023): a trial's evaluation log (`trial_log`: its reader and writer) and the scores made of such logs
(`scoring`: times to target, studies, performance profiles, the benchmark score, speedups over a reference).

Plain Python and numpy: the training runner writes the logs, the site and the importers read and score them, with
the same code.
"""
