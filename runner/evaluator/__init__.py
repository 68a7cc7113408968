"""The evaluator: runs inside evaluation containers with only torch/triton/numpy available."""
