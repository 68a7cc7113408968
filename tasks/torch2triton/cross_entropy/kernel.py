"""Cross-entropy per row in Triton -- write this.

forward(logits, targets, rows, cols) must return
torch.nn.functional.cross_entropy(logits, targets, reduction="none"), a new float32 tensor of
shape [rows] (see reference.py and README.md).
"""
import torch
import triton
import triton.language as tl


def forward(logits: torch.Tensor, targets: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    raise NotImplementedError("write a Triton kernel and launch it here")
