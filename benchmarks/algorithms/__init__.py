"""The algorithm track, in AlgoPerf's manner: fixed workloads (`workloads`), training algorithms behind AlgoPerf's
PyTorch API (`spec`; the shipped ones in `baselines`), and the runner that times them (`runner`).

A workload here is what AlgoPerf calls one: data, model, loss, evaluation, the target metric and its direction, the
validation target, the maximum runtime and the evaluation period, all fixed. An algorithm is a module with
AlgoPerf's functions (`get_batch_size`, `init_optimizer_state`, `update_params`, `data_selection`, optionally
`prepare_for_eval`); an AlgoPerf PyTorch submission runs here with its imports changed from `algoperf` to
`benchmarks.algorithms` (`from benchmarks.algorithms import spec`, `from benchmarks.algorithms.pytorch_utils import
pytorch_setup`).
"""
