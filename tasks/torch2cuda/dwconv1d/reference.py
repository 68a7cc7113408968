"""Depthwise 1-D convolution ("same" padding, odd kernel) of a float32 [batch, channels, length] tensor."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    batch, channels, length = int(config["batch"]), int(config["channels"]), int(config["length"])
    kernel_size = int(config["kernel_size"])
    # Made on the CPU with the generator so the values do not depend on the device. The bias is
    # large enough that a kernel that drops it fails.
    x = torch.randn((batch, channels, length), generator=generator, dtype=torch.float32)
    weight = torch.randn((channels, 1, kernel_size), generator=generator, dtype=torch.float32) / kernel_size ** 0.5
    bias = torch.randn((channels,), generator=generator, dtype=torch.float32)
    return [x.to(device), weight.to(device), bias.to(device), batch, channels, length, kernel_size]


def reference(x, weight, bias, batch, channels, length, kernel_size):
    # out[b, c, t] = bias[c] + sum_j weight[c, 0, j] * x[b, c, t + j - kernel_size // 2] (zero outside)
    return torch.nn.functional.conv1d(x, weight, bias, padding=kernel_size // 2, groups=channels)
