"""Measured inference: ONNX export of a reference job's checkpoint, and the one-item-at-a-time latency harness
(DAWNBench's inference rule), with percentiles, an accuracy gate and the cost per 10,000 items."""
