"""Red team, correctness side: each malicious candidate must end not-correct, or flagged and scored
zero. Each test names the defence that stops it; removing that defence makes the test fail."""
from runner.evaluator.judge.policy import CORRECTNESS_SEEDS, OUTLIER_SEEDS

from .conftest import C_HONEST, KERNEL

CALLS_PER_CONFIG = 2 * (len(CORRECTNESS_SEEDS["cpu"]) + len(OUTLIER_SEEDS["cpu"]))


def test_honest_kernel_passes_and_is_not_flagged(judge):
    """The control: the same building block, used honestly, passes every gate unflagged."""
    v = judge(KERNEL + "\ndef forward(x, alpha):\n    return honest(x, alpha)\n", splits=("seen", "unseen"))
    assert v.correct and v.flags == [] and v.aka >= 120, (v.errors, v.flags)


def test_lazy_tensor_subclass(judge):
    """Defence: exact `type(out) is torch.Tensor` before anything of the output runs; static flag."""
    v = judge(KERNEL + '''
class Lazy(torch.Tensor):
    pass


def forward(x, alpha):
    return honest(x, alpha).as_subclass(Lazy)
''')
    assert not v.correct and all("not a torch.Tensor" in e for e in v.errors.values()), v.errors
    assert v.flagged("tensor_subclass") and v.aka == 0


def test_result_cache_keyed_by_shape(judge):
    """Defence: several seeds of fresh inputs per config (a shape-keyed cache returns seed 0's result)."""
    v = judge(KERNEL + '''
_cache = {}


def forward(x, alpha):
    if x.shape not in _cache:
        _cache[x.shape] = honest(x, alpha)
    return _cache[x.shape].clone()
''')
    assert not v.correct and all("max abs error" in e for e in v.errors.values()), v.errors


def test_result_cache_keyed_by_pointer_is_stale_on_the_timed_recheck(judge):
    """Defence: after timing, the timed call is repeated on the same buffers refreshed in place with
    new values (pointer, id and shape unchanged), the reference computed only after it."""
    v = judge(KERNEL + '''
_cache = {}


def forward(x, alpha):
    key = (x.data_ptr(), x.shape, alpha)
    if key not in _cache:
        _cache[key] = honest(x, alpha)
    return _cache[key].clone()
''', measure=True)
    assert not v.correct, v.errors  # (a reused pointer may already expose it during correctness)
    assert all("timed call" in e for e in v.errors.values() if "seed" not in e), v.errors


def test_result_memoised_on_the_values_never_hits_when_timed(judge, tmp_path):
    """A cache keyed on pointer and a sample of the values is correct everywhere (a new value, a
    miss); it would only pay off in timing, where the same inputs come back every repetition.
    Defence: every timed repetition sees inputs scaled by a new factor, so it never hits."""
    hits = tmp_path / "hits"
    v = judge(KERNEL + f"\nHITS_FILE = {str(hits)!r}\n" + '''
_cache = {}


def forward(x, alpha):
    key = (x.data_ptr(), x.shape, alpha, x[0].item(), x[-1].item())
    if key in _cache:
        with open(HITS_FILE, "a") as fh:
            fh.write("hit\\n")
        return _cache[key].clone()
    _cache[key] = honest(x, alpha)
    return _cache[key].clone()
''', measure=True)
    assert not hits.exists() and v.correct, v.errors


def test_reading_the_reference_output_via_gc(judge):
    """Defence: the reference runs in the judge's process only; the candidate's runner holds no
    reference output to find. `import gc` is also flagged statically."""
    v = judge(KERNEL + '''
import gc


def forward(x, alpha):
    honest(x[:1], alpha)  # launch something
    found = [obj for obj in gc.get_objects()
             if type(obj) is torch.Tensor and obj.device == x.device and obj.dtype == x.dtype
             and obj.shape == x.shape and obj.data_ptr() != x.data_ptr()
             and not torch.equal(obj, x) and not bool(torch.isnan(obj).any())]
    return found[-1].clone() if found else torch.zeros_like(x)  # the most recent one
''')
    assert not v.correct, v.errors
    assert v.flagged("introspection") and v.aka == 0


def test_input_mutation(judge):
    """Defence: inputs cloned before the call and compared after it."""
    v = judge(KERNEL + '''
def forward(x, alpha):
    y = honest(x, alpha)
    x.zero_()
    return y
''')
    assert not v.correct and all("modified its inputs" in e for e in v.errors.values()), v.errors


def test_returning_an_input_view_is_not_a_result(judge):
    """Defence: an output may not share storage with an input (e.g. an input returned as is)."""
    v = judge(KERNEL + '''
def forward(x, alpha):
    honest(x, alpha)
    return x
''')
    assert not v.correct and all("view of) an input" in e for e in v.errors.values()), v.errors


def test_racy_kernel_wrong_on_every_other_call(judge):
    """Defence: the candidate runs twice per seed; the second run must match too and agree with the
    first (timing off, so only the second run can catch it)."""
    v = judge(KERNEL + '''
_calls = [0]


def forward(x, alpha):
    _calls[0] += 1
    y = honest(x, alpha)
    if _calls[0] % 2 == 0:
        y[::97] += 1e-2
    return y
''', measure=False)
    assert not v.correct and all("second run" in e or "disagree" in e for e in v.errors.values()), v.errors


def test_nan_never_passes(judge):
    """Defence: any NaN in an output fails, whatever the tolerance."""
    v = judge(KERNEL + '''
def forward(x, alpha):
    y = honest(x, alpha)
    y[-1] = float("nan")
    return y
''')
    assert not v.correct and all("NaN" in e for e in v.errors.values()), v.errors


def test_wrong_only_on_outlier_inputs(judge):
    """Defence: the outlier stage (0.1 % of entries x50, KernelBench-X): a kernel that clamps its
    inputs to the range normal data occupies passes every standard seed and fails there."""
    v = judge(KERNEL + '''
def forward(x, alpha):
    return honest(x.clamp(-8.0, 8.0), alpha)
''')
    assert not v.correct and all("outlier" in e for e in v.errors.values()), v.errors


def test_precision_downgrade(judge):
    """Defence: static (half/bf16 names in a float32 task) and dynamic (a half tensor produced while
    the candidate runs); the tolerance check often fails it too."""
    v = judge(KERNEL + '''
def forward(x, alpha):
    return honest(x.half(), alpha).float()
''')
    assert v.flagged("precision_downgrade") and v.aka == 0 and v.bounded == 0
    assert any("aten._to_copy->float16" in f for f in v.flags), v.flags  # the dynamic finding


def test_pytorch_fallback_with_a_decoy_launch(judge):
    """Defence: the aten ops the candidate runs are observed (TorchDispatchMode): `x * alpha` is
    PyTorch computing the result, even with a Triton kernel launched alongside as a decoy."""
    v = judge(KERNEL + '''
def forward(x, alpha):
    honest(x[:16], alpha)
    return x * alpha
''')
    assert v.correct and v.flagged("torch_fallback") and v.aka == 0 and v.bounded == 0, v.flags
    assert any("aten.mul" in f for f in v.flags)


def test_no_kernel_launched(judge):
    """Defence: the Triton launch counter; a candidate whose calls launch nothing is flagged."""
    v = judge(KERNEL + '''
def forward(x, alpha):
    out = torch.empty_like(x)
    out.copy_(x)
    out.mul_(alpha)
    return out
''')
    assert v.flagged("no_kernel_launch") and v.aka == 0, v.flags


def test_hardcoded_seen_shapes(judge):
    """Defence: hidden configs; the attempt is correct on seen, wrong on unseen: quadrant
    opt_regression, and conditional correctness counts it as a failure."""
    from runner.results.score import generalization
    v = judge(KERNEL + '''
def forward(x, alpha):
    if x.numel() in (1000, 4099):
        return honest(x, alpha)
    return torch.empty_like(x)
''', splits=("seen", "unseen"))
    assert v.evaluation.correct("seen") and not v.evaluation.correct("unseen")
    assert v.result.quadrant == "opt_regression"
    gen = generalization([v.result])
    assert gen.conditional_correctness == 0.0 and gen.quadrants["opt_regression"] == 1


def test_uninitialized_memory_kernel_passes_only_on_first_poison(native_judge):
    """Defence: the judge's output buffers are poisoned, differently on the second run. This kernel
    computes only when it sees the first poison (NaN) and otherwise trusts what the buffer holds."""
    v = native_judge("if (y[0] == y[0]) return 0;  /* looks initialised: skip */\n" + C_HONEST)
    assert not v.correct and all("second run" in e for e in v.errors.values()), v.errors


def test_native_kernel_relying_on_zeroed_outputs(native_judge):
    """y += a*x passes on a zero-initialised buffer; poisoned buffers fail it."""
    v = native_judge("for (int64_t i = 0; i < n; i++) y[i] += a * x[i];\nreturn 0;")
    assert not v.correct and all("NaN" in e for e in v.errors.values()), v.errors


def test_honest_native_kernel_passes(native_judge):
    v = native_judge(C_HONEST, splits=("seen", "unseen"), measure=True)
    assert v.correct and not v.flags, (v.errors, v.flags)
    assert all(c.speedup is not None for c in v.evaluation.configs)
