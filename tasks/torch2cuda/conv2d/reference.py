"""3x3 convolution, stride 1, padding 1, with bias, of a float32 NCHW tensor (small channel counts)."""
import torch


def make_inputs(config: dict, generator: torch.Generator, device: str) -> list:
    batch, cin, cout = int(config["batch"]), int(config["cin"]), int(config["cout"])
    height, width = int(config["height"]), int(config["width"])
    # Made on the CPU with the generator so the values do not depend on the device. Weights scaled
    # so outputs are O(1) whatever cin is; the bias is large enough that dropping it fails.
    x = torch.randn((batch, cin, height, width), generator=generator, dtype=torch.float32)
    weight = torch.randn((cout, cin, 3, 3), generator=generator, dtype=torch.float32) / (9 * cin) ** 0.5
    bias = torch.randn((cout,), generator=generator, dtype=torch.float32)
    return [x.to(device), weight.to(device), bias.to(device), batch, cin, cout, height, width]


def reference(x, weight, bias, batch, cin, cout, height, width):
    # out[b, o, y, x] = bias[o] + sum_{c, i, j} weight[o, c, i, j] * x[b, c, y + i - 1, x + j - 1]
    # (zero outside the image). IEEE float32: the judge switches TF32 off for cuDNN.
    return torch.nn.functional.conv2d(x, weight, bias, stride=1, padding=1)
