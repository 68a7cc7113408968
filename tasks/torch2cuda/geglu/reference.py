"""GeGLU: GELU (exact, erf) of the first half of each row times the second half, float32."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    rows, hidden = int(config["rows"]), int(config["hidden"])
    # Made on the CPU with the generator so the values do not depend on the device. The gate
    # and up projections share one [rows, 2 * hidden] tensor, as a fused projection writes them.
    x = 2.0 * torch.randn((rows, 2 * hidden), generator=generator, dtype=torch.float32)
    return [x.to(device), rows, hidden]


def reference(x, rows, hidden):
    gate, up = x[:, :hidden], x[:, hidden:]
    return torch.nn.functional.gelu(gate) * up
