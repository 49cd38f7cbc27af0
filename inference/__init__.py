"""ONNX export and the one-item-at-a-time latency harness. They arrive with the inference issue."""
