"""Gauntlet: benchmark coding agents on GPU-kernel optimisation.

Task -> Workspace -> Sandbox -> Agent -> Evaluator -> Result -> Report, one module per noun.
Nothing here imports torch: the evaluator runs in its own process (and container).
"""
__version__ = "0.1.0"
