"""1-D max pooling of a float32 [batch, channels, length] tensor (kernel_size, stride, padding)."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    batch, channels, length = int(config["batch"]), int(config["channels"]), int(config["length"])
    kernel_size, stride, padding = int(config["kernel_size"]), int(config["stride"]), int(config["padding"])
    # Made on the CPU with the generator so the values do not depend on the device. Mostly
    # negative values: a kernel that pads with 0 instead of -inf is wrong at the edges.
    x = torch.randn((batch, channels, length), generator=generator, dtype=torch.float32) - 2.0
    return [x.to(device), batch, channels, length, kernel_size, stride, padding]


def reference(x, batch, channels, length, kernel_size, stride, padding):
    # out[b, c, o] = max(x[b, c, o * stride - padding + j] for j < kernel_size, inside [0, length))
    return torch.nn.functional.max_pool1d(x, kernel_size, stride=stride, padding=padding)
