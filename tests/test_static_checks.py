"""Static checks on candidate source: each spelling of a forbidden thing is flagged as the direct
spelling is, and honest code (the tasks' own solutions among it) is not flagged at all."""
import functools
import re
import textwrap
from pathlib import Path

import pytest

from runner.evaluator.judge.static_checks import check_native, check_python

REPO = Path(__file__).resolve().parent.parent
# A file with a Triton kernel, so that only what a case adds can be flagged.
HEADER = """\
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
"""
FLAG = re.compile(r"^[a-z_]+: .+ \(kernel\.py:\d+\)$")


def flags(body: str, **kwargs) -> list[str]:
    return check_python(HEADER + textwrap.dedent(body), **kwargs)


def flagged(found: list[str], kind: str, detail: str = "") -> bool:
    return any(f.startswith(kind + ":") and detail in f for f in found)


# -- 1. aliases, attribute chains and dynamic lookups resolve to what they name -----------------------
RESOLVED = {
    "module re-exported by torch": ("torch.os.system('true')", "process_control", "os.system"),
    "sys through an alias of torch": ("import torch as t\nt.sys.modules", "process_control", "sys.modules"),
    "_thread through sys.modules": ("torch.sys.modules['_thread'].start_new_thread(print, ())",
                                    "thread_injection", "_thread.start_new_thread"),
    "from torch import os as o": ("from torch import os as o\no.getcwd()", "process_control", "os.getcwd"),
    "function alias on the left of =": ("f = torch.softmax\n\ndef forward(x):\n    return f(x, -1)",
                                        "torch_fallback", "torch.softmax via f"),
    "module alias in a tuple assignment": ("a, b = torch.nn.functional, 1\n\ndef forward(x):\n"
                                           "    return a.softmax(x, -1)",
                                           "torch_fallback", "torch.nn.functional.softmax via a.softmax"),
    "getattr with a literal": ("def forward(x):\n    return getattr(torch, 'softmax')(x, -1)",
                               "torch_fallback", "torch.softmax"),
    "getattr with literals added": ("def forward(x):\n    return getattr(torch, 'soft' + 'max')(x, -1)",
                                    "torch_fallback", "torch.softmax"),
    "getattr with a name bound to literals": ("NAME = 'soft'\nFULL = f'{NAME}max'\n\ndef forward(x):\n"
                                              "    return getattr(torch, FULL)(x, -1)",
                                              "torch_fallback", "torch.softmax"),
    "getattr with a joined and sliced name": ("def forward(x):\n"
                                              "    return getattr(torch, ''.join(['xam', 'tfos'])[::-1])(x)",
                                              "torch_fallback", "torch.softmax"),
    "nested getattr": ("def forward(x):\n    return getattr(getattr(torch, 'nn'), 'functional').gelu(x)",
                       "torch_fallback", "torch.nn.functional.gelu"),
    "vars(module)[name]": ("def forward(x):\n    return vars(torch)['softmax'](x, -1)",
                           "torch_fallback", "torch.softmax"),
    "module.__dict__[name]": ("def forward(x):\n    return torch.__dict__['softmax'](x, -1)",
                              "torch_fallback", "torch.softmax"),
    "importlib.import_module": ("import importlib\nimportlib.import_module('os').system('true')",
                                "process_control", "os.system"),
    "__import__": ("__import__('o' + 's').system('true')", "process_control", "os.system"),
    # string-to-object resolvers: an import and attribute lookups from one dotted string
    "torch._utils._import_dotted_name": ("f = torch._utils._import_dotted_name('torch.soft' + 'max')\n\n"
                                         "def forward(x):\n    return f(x, -1)", "torch_fallback", "torch.softmax"),
    "pkgutil.resolve_name": ("import pkgutil\nf = pkgutil.resolve_name('torch:softmax')\n\ndef forward(x):\n"
                             "    return f(x, -1)", "torch_fallback", "torch.softmax"),
    "a dotted-name import of a computed name": ("f = torch._utils._import_dotted_name(bytes([111, 115]).decode())",
                                                "introspection", "_import_dotted_name of a computed name"),
    # getattr handed on as a value: it is called where no name can be read
    "getattr as a value": ("import functools\nf = functools.reduce(getattr, ['softmax'], torch)\n\n"
                           "def forward(x):\n    return f(x, -1)", "introspection", "getattr as a value"),
    "__builtins__ subscript": ("run = __builtins__['ev' + 'al']", "introspection", "eval"),
    "numpy bound to another name": ("import numpy\nnp = numpy\n\ndef forward(x):\n    return np.exp(x)",
                                    "numpy_compute", "numpy.exp via np.exp"),
    "a callable kept in a list": ("OPS = [torch.softmax]\n\ndef forward(x):\n    return OPS[0](x, -1)",
                                  "torch_fallback", "torch.softmax via OPS[0]"),
    "a callable kept on self": ("class Op:\n    def __init__(self):\n        self.fn = torch.softmax\n\n"
                                "    def __call__(self, x):\n        return self.fn(x, -1)",
                                "torch_fallback", "torch.softmax via self.fn"),
    "a loop over callables": ("def forward(x):\n    for fn in (torch.exp, torch.log):\n        x = fn(x)\n    return x",
                              "torch_fallback", "torch.exp via fn"),
    "a local function returning a module": ("def ops():\n    return torch.nn.functional\n\ndef forward(x):\n"
                                            "    return ops().gelu(x)", "torch_fallback", "torch.nn.functional.gelu"),
    "functools.partial": ("import functools\nsoftmax = functools.partial(torch.softmax, dim=-1)\n\n"
                          "def forward(x):\n    return softmax(x)", "torch_fallback", "torch.softmax via softmax"),
    "operator.attrgetter": ("import operator\n\ndef forward(x):\n"
                            "    return operator.attrgetter('softmax')(torch)(x, -1)",
                            "torch_fallback", "torch.softmax"),
    "star import": ("from torch import *\n\ndef forward(x):\n    return softmax(x, -1)",
                    "torch_fallback", "torch.softmax via softmax"),
    "global set in a function": ("fn = None\n\ndef setup():\n    global fn\n    fn = torch.softmax\n\n"
                                 "def forward(x):\n    return fn(x, -1)", "torch_fallback", "torch.softmax via fn"),
    "a default argument": ("def forward(x, fn=torch.nn.functional.silu):\n    return fn(x)",
                           "torch_fallback", "torch.nn.functional.silu via fn"),
    "patching through sys.modules": ("import sys\nsys.modules['runner.evaluator.harness'].compare = None",
                                     "timer_patching", "assignment to runner.evaluator.harness.compare"),
    "patching through an alias": ("cuda = torch.cuda\ncuda.synchronize = lambda: None", "timer_patching",
                                  "assignment to torch.cuda.synchronize"),
    "setattr with literals": ("setattr(torch.cuda, 'synchro' + 'nize', print)", "timer_patching",
                              "assignment to torch.cuda.synchronize"),
}


@pytest.mark.parametrize("body,kind,detail", RESOLVED.values(), ids=RESOLVED.keys())
def test_every_spelling_is_flagged_as_what_it_resolves_to(body, kind, detail):
    found = flags(body)
    assert flagged(found, kind, detail), found


# -- 2. modules and entry points that escape the process -------------------------------------------
ESCAPES = {
    "runpy": ("import runpy", "introspection"),
    "atexit": ("import atexit", "process_control"),
    "codecs": ("import codecs\ncodecs.open('f')", "process_control"),
    "_thread": ("import _thread", "thread_injection"),
    "_posixsubprocess": ("import _posixsubprocess", "process_control"),
    "faulthandler": ("import faulthandler", "process_control"),
    "marshal": ("import marshal", "process_control"),
    "traceback": ("import traceback", "introspection"),
    "unittest.mock": ("from unittest import mock", "timer_patching"),
    "__main__": ("import __main__", "harness_access"),
    "torch.multiprocessing": ("torch.multiprocessing.Process(target=print).start()", "thread_injection"),
    "torch.library": ("lib = torch.library.Library('aten', 'IMPL')", "dispatch_override"),
    "torch.utils.cpp_extension": ("from torch.utils.cpp_extension import load_inline", "native_access"),
    "torch.load": ("state = torch.load('x.pt')", "process_control"),
    "logging.currentframe": ("import logging\nframe = logging.currentframe()", "introspection"),
    "frame from a traceback": ("def caller(e):\n    return e.__traceback__.tb_frame.f_back", "introspection"),
    "frame from a generator": ("def caller(g):\n    return g.gi_frame.f_back.f_code", "introspection"),
    "scipy": ("import scipy.special", "library_fallback"),
    "exit": ("exit(0)", "process_control"),
    "make_graphed_callables": ("g = torch.cuda.make_graphed_callables(print, ())", "stream_injection"),
}


@pytest.mark.parametrize("body,kind", ESCAPES.values(), ids=ESCAPES.keys())
def test_modules_that_reach_the_process_are_flagged(body, kind):
    found = flags(body)
    assert flagged(found, kind), found


def test_dynamic_code_execution_is_flagged_however_reached():
    for body in ("exec('x = 1')", "eval('1')", "compile('1', 'f', 'eval')", "import builtins\nbuiltins.exec('1')",
                 "run = getattr(__builtins__, 'exec')"):
        found = flags(body)
        assert flagged(found, "introspection"), (body, found)


# -- 2b. strings that name the runner's modules, whoever they are handed to ----------------------
# MODULE_LOADERS lists a few functions that turn a string into a module; these reached the runner's
# modules through others (red team rt23). The string itself is what the checks read.
NAMING_STRINGS = {
    "torch.package importer": ("import torch.package\n"
                               "g = torch.package.sys_importer.import_module('runner.evaluator.guard')",
                               "'runner.evaluator.guard' names a module (harness_access)"),
    "pydoc.locate of __main__": ("import pydoc\nmain = pydoc.locate('__main__')",
                                 "'__main__' names a module (harness_access)"),
    "logging.config._resolve": ("import logging.config\ng = logging.config._resolve('runner.evaluator.guard')",
                                "'runner.evaluator.guard' names a module"),
    "a format field's attribute path": ("import string\n"
                                        "g = string.Formatter().get_field('0.__globals__', [torch.is_tensor], {})[0]",
                                        "'0.__globals__' holds an attribute path"),
    "a module name handed to nothing known": ("NAME = 'sys'", "'sys' names a module (process_control)"),
    "folded from parts": ("import logging.config\nPART = 'ner'\n"
                          "g = logging.config._resolve('run' + PART + f'{\".eval\"}uator.' + ''.join(['gu', 'ard']))",
                          "'runner.evaluator.guard' names a module"),
    "a module:attr name": ("import logging.config\nc = logging.config._resolve('runner.evaluator.clock:CpuClock')",
                           "'runner.evaluator.clock:CpuClock' names a module"),
    "the reference module": ("import logging.config\nref = logging.config._resolve('reference')",
                             "'reference' names a module (harness_access)"),
    "a dunder word alone": ("import operator\nget = operator.attrgetter('__globals__')",
                            "'__globals__' holds an attribute path"),
    "a dunder path built at run time": ("def path(i):\n    return f'{i}.__closure__'",
                                        "'.__closure__' holds an attribute path"),
    "a bare string that is no docstring": ("X = 1\n'runner.evaluator.guard'", "names a module (harness_access)"),
}


@pytest.mark.parametrize("body,detail", NAMING_STRINGS.values(), ids=NAMING_STRINGS.keys())
def test_a_string_naming_a_forbidden_module_or_an_attribute_path_is_flagged(body, detail):
    found = flags(body)
    assert flagged(found, "introspection", detail), found
    assert all(FLAG.match(f) for f in found), found


def test_a_docstring_is_read_back_only_through_flagged_names():
    """Docstrings are exempt from the string rule; reading one back as a value is flagged."""
    for body in ("def f():\n    'x'\n\ng = f.__doc__", "g = __doc__", "import pydoc\ng = pydoc.getdoc(torch)"):
        assert flagged(flags(body), "introspection"), (body, flags(body))


@pytest.mark.parametrize("body", [
    "import logging.config\n\ndef f(name):\n    logging.config._resolve(name).TorchOpWatch.observe = None",
    "import logging.config\n\ndef f(name):\n    setattr(logging.config._resolve(name).Runner, '_write', None)",
    "def f(guard):\n    guard.CpuClock.once = lambda self, fn: fn()",
])
def test_a_write_through_a_class_of_the_runners_is_flagged_wherever_it_came_from(body):
    """The name came from nothing the file spells: the class of the runner's on the written path is
    what is read (the classes of runner/evaluator/*.py, from their source)."""
    assert flagged(flags(body), "harness_access", "a class of the runner's"), flags(body)


HONEST_STRINGS = {
    "docstrings": ('"""Reads x.__dict__? No: the sys module is not used here."""\n'
                   'import torch\n\n\ndef launch(n):\n    """The runner calls this; __globals__ is never read."""\n'
                   '    return n\n\n\nclass Plan:\n    """tb_frame and runner.evaluator only in prose."""\n'),
    "__name__ == '__main__'": "def main():\n    return 0\n\nif __name__ == '__main__':\n    main()\n",
    "log messages and f-strings": ("import logging\nlog = logging.getLogger(__name__)\n\ndef launch(n, x):\n"
                                   "    log.info(f'launching {n} blocks on {x.device}: sys time is fine')\n"
                                   "    log.debug('the %s module', 'triton')\n    return n\n"),
    "prose naming a module": "NOTE = 'uses the runner and sys modules only by name'\n",
    "the device name": "def make(n):\n    return torch.empty(n, device='cuda')\n",
    "a function's own name": "def name_of(fn):\n    return getattr(fn, '__name__', 'kernel')\n",
}


@pytest.mark.parametrize("body", HONEST_STRINGS.values(), ids=HONEST_STRINGS.keys())
def test_honest_strings_are_not_flagged(body):
    """Decided: prose that mentions a module ("the sys module") is no name a loader takes (only a
    whole string that is a dotted name is); a docstring is prose; "cuda" is the device."""
    source = body if body.startswith('"""') else HEADER + body
    assert check_python(source, fp32_task=True, custom_kernel=False) == []


# -- 3. NumPy computing the result ----------------------------------------------------------------
@pytest.mark.parametrize("body,detail", [
    ("import numpy as np\n\ndef forward(x):\n    return torch.from_numpy(np.matmul(x, x))", "numpy.matmul"),
    ("from numpy import exp\n\ndef forward(x):\n    return exp(x)", "numpy.exp"),
    ("def forward(x):\n    return x.cpu().numpy()", ".numpy()"),
    ("import numpy as np\n\ndef forward(x):\n    a = np.asarray(x)\n    return a.sum()", ".sum()"),
    # the array protocol's spelling of .numpy() (red team, session 27: passed on the CPU unflagged)
    ("def forward(x, alpha):\n    return torch.from_numpy(x.__array__() * alpha)", ".__array__()"),
])
def test_numpy_compute_is_flagged(body, detail):
    found = flags(body)
    assert flagged(found, "numpy_compute", detail), found


# -- 3b. host memory the device can address: how a CPU result reaches a kernel without a copy ------
@pytest.mark.parametrize("body,detail", [
    ("def forward(x):\n    h = torch.empty(x.numel(), pin_memory=True)\n    return x", "pin_memory=True"),
    ("def forward(x):\n    return x.cpu().pin_memory()", ".pin_memory()"),
    ("def forward(x):\n    torch.cuda.cudart().cudaHostRegister(0, 0, 0)\n    return x", ".cudaHostRegister()"),
    ("def forward(x, flag=True):\n    return torch.zeros(4, pin_memory=flag)", "pin_memory=flag"),
    ("def forward(x):\n    return torch.zeros(4, **{'pin_' + 'memory': True})", "'pin_memory'"),
    ("def forward(x):\n    kw = dict(pin_memory=True)\n    return torch.zeros(4, **kw)", "pin_memory=True"),
    ("def forward(x):\n    return getattr(x.cpu(), 'pin_' + 'memory')()", "pin_memory"),
])
def test_device_addressable_host_memory_is_flagged(body, detail):
    """A result computed on the CPU needs no copy the device trace records when kernels of the
    candidate's own move it through pinned, registered or managed host memory (the red team's
    mapped_host_result on an H200, results/gpu-2026-11-30.md): every way of getting such memory
    is a flag, as no GPU task's kernel needs one."""
    found = flags(body)
    assert any(f.startswith("host_memory") and detail in f for f in found), found


@pytest.mark.parametrize("body", ["def forward(x):\n    torch.cuda.cudart().cudaProfilerStart()\n    return x",
                                  "def forward(x):\n    f = getattr(torch.cuda, 'cud' + 'art')\n    return x"])
def test_the_raw_cuda_runtime_is_native_access(body):
    assert any(f.startswith("native_access: torch.cuda.cudart") for f in flags(body)), flags(body)


@pytest.mark.parametrize("body", [
    "def forward(x):\n    with torch.profiler.profile():\n        return x * 2\n",
    "from torch.autograd import profiler\ndef forward(x):\n    with profiler.profile(use_cuda=True):\n        return x\n",
    "def forward(x):\n    torch.cuda.profiler.stop()\n    return x\n",
    "def forward(x):\n    getattr(torch, 'prof' + 'iler').profile().__enter__()\n    return x\n"])
def test_pytorchs_profiler_is_trace_tampering(body):
    """PyTorch's profiler drives CUPTI in the runner's process, the device trace's own machinery: its
    start registers its own record buffers, its stop switches activity kinds off."""
    assert any(f.startswith("trace_tampering: ") for f in flags(body)), flags(body)


def test_an_explicitly_unpinned_tensor_is_not_host_memory():
    assert not [f for f in flags("def forward(x):\n    return torch.empty(4, pin_memory=False)") if "host_memory" in f]


@pytest.mark.parametrize("name", ["cudaHostAlloc", "cudaMallocHost", "cudaHostRegister", "cudaMallocManaged",
                                  "cuMemHostAlloc", "cuMemHostRegister_v2", "hipHostMalloc", "hipHostRegister",
                                  "hipMallocManaged", "__managed__", "pin_memory"])
def test_device_addressable_host_memory_is_flagged_in_native_code(name):
    source = (f"__global__ void k(float* y) {{ y[0] = 1; }}\n"
              f"extern \"C\" int launch(float* y, void* s) {{ void* h; {name}(&h, 64); k<<<1, 1>>>(y); return 0; }}")
    assert f"host_memory: {name} (kernel.cu)" in check_native(source), check_native(source)


@pytest.mark.parametrize("name, kind", [
    ("syscall", "process_control"), ("dup2", "process_control"), ("dup3", "process_control"),
    ("close", "process_control"), ("pipe2", "process_control"), ("sigaction", "process_control"),
    ("setitimer", "process_control"), ("timer_create", "process_control"), ("process_vm_writev", "process_control"),
    ("cuLaunchHostFunc", "stream_injection"), ("cuStreamCreate", "stream_injection"),
    ("cudaGetDriverEntryPoint", "native_access"), ("cuGetProcAddress", "native_access"),
    ("cuMemMap", "native_access"), ("dl_iterate_phdr", "native_access"),
    ("cudaProfilerStop", "trace_tampering"), ("cuptiActivityDisable", "trace_tampering"),
    ("cuptiUnsubscribe", "trace_tampering")])
def test_native_code_that_could_silence_or_redirect_the_device_trace_is_flagged(name, kind):
    """The device trace's library and its pipe live in the runner's process, beside a native
    candidate's code: CUPTI's own API (an activity kind switched off around one kernel), a system call
    on the pipe's descriptor, code run at times of the candidate's choosing without a thread (a
    signal, a timer, a driver host callback), the loaded objects found and their memory mapped. Each
    is named however it is declared (its header, or a prototype of the candidate's own)."""
    source = (f"__global__ void k(float* y) {{ y[0] = 1; }}\n"
              f"extern \"C\" long {name}(long, ...);\n"
              f"extern \"C\" int launch(float* y) {{ {name}(1, 2); k<<<1, 1>>>(y); return 0; }}")
    assert f"{kind}: {name} (kernel.cu)" in check_native(source), check_native(source)


def test_a_system_call_in_inline_assembly_is_flagged_and_ptx_is_not():
    ptx = '__global__ void k(float* y) { float v; asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(v) : "l"(y)); y[0] = v; }\n'
    assert check_native(ptx) == []
    host = ptx + 'extern "C" int launch(float* y) { long r; asm volatile ("syscall" : "=a"(r) : "a"(33L) : "rcx", "r11"); return 0; }'
    assert any(f.startswith("process_control: inline assembly 'syscall'") for f in check_native(host)), check_native(host)
    for spelled in ('"sys" "call"', '".byte 0x0f, 0x05"'):        # joined literals; the instruction's bytes
        other = host.replace('"syscall"', spelled)
        assert any(f.startswith("process_control: inline assembly") for f in check_native(other)), check_native(other)


def test_ordinary_words_a_kernel_declares_for_itself_are_its_own():
    source = ("#include <cuda/pipeline>\n__global__ void k(float* y) {\n  auto pipe = cuda::make_pipeline();\n"
              "  int close = 3; bool signal = y[0] > 0; float dup = y[1];\n  y[2] = close + signal + dup;\n}\n"
              "static int remove(int a, int b)\n{\n  return a - b;\n}\n")
    assert check_native(source) == []


@pytest.mark.parametrize("call", ["if (close(3)) { }", "if (close(3) == 0) { return 1; }", "close(3);"])
def test_a_prototype_or_a_call_does_not_make_a_library_function_the_files_own(call):
    """`extern "C" long close(long, ...);` declares libc's close without its header; a call followed
    by a block is not a definition either. Only a variable or a function the file defines is its own."""
    source = ('__global__ void k(float* y) { y[0] = 1; }\nextern "C" long close(long, ...);\n'
              f'extern "C" int launch(float* y) {{ {call} return 0; }}')
    assert "process_control: close (kernel.cu)" in check_native(source), check_native(source)


def test_numpy_dtype_names_are_not_compute():
    assert flags("import numpy as np\nBYTES = np.dtype(np.float32).itemsize\n") == []


# -- 4. PyTorch compute, only where the category asks for a kernel ---------------------------------
TORCH_SPELLINGS = [
    "def forward(x):\n    return torch.softmax(x, -1)",
    "import torch.nn.functional as F\n\ndef forward(x):\n    return F.gelu(x)",
    "def forward(x):\n    y = torch.empty_like(x)\n    return y.add(1)",
    "def forward(x: torch.Tensor):\n    return x.sum()",
    "def forward(x):\n    return x.softmax(-1)",
    "def forward(x):\n    return torch.Tensor.mul(x, 2)",
    "def forward(x):\n    return type(x).softmax(x, -1)",
    "import operator\n\ndef forward(x):\n    return operator.methodcaller('softmax', -1)(x)",
    "@torch.compile\ndef forward(x):\n    return x",
    # `@` in every spelling: the operator, in place, as a function, as a method (cuBLAS runs each)
    "def forward(a, b):\n    return a @ b",
    "def forward(a, b):\n    c = a.clone()\n    c @= b\n    return c",
    "import operator\n\ndef forward(a, b):\n    return operator.matmul(a, b)",
    "import functools, operator\n\ndef forward(a, b):\n    return functools.reduce(operator.matmul, [a, b])",
    "from _operator import imatmul\n\ndef forward(a, b):\n    return imatmul(a.clone(), b)",
    "def forward(a, b):\n    return a.__matmul__(b)",
    "def forward(a, b):\n    return type(b).__rmatmul__(b, a)",
]


# In-place ops and the torch compute set's ATen names on a receiver of unknown origin (red team rt23).
# `x ** 2` on a tensor stays to the op watch and the device trace: no static rule can type it.
UNKNOWN_RECEIVER_COMPUTE = {
    "exp_": "def forward(x):\n    return x.exp_()",
    "cumsum_": "def forward(x):\n    return x.cumsum_(0)",
    "addmm_": "def forward(c, a, b):\n    return c.addmm_(a, b)",
    "index_add_": "def forward(y, i, s):\n    return y.index_add_(0, i, s)",
    "topk": "def forward(x):\n    return x.topk(5)",
    "argmax": "def forward(x):\n    return x.argmax(-1)",
    "sort with an argument": "def forward(x):\n    return x.sort(-1)",
    "in place on a tensor torch made": "def forward(n):\n    return torch.ones(n).exp_()",
    "torch's in-place function": "def forward(x):\n    return torch.relu_(x)",
}


@pytest.mark.parametrize("body", UNKNOWN_RECEIVER_COMPUTE.values(), ids=UNKNOWN_RECEIVER_COMPUTE.keys())
def test_in_place_and_unknown_receiver_compute_is_flagged(body):
    assert flagged(flags(body), "torch_fallback"), flags(body)


def test_a_list_sort_is_not_a_tensors():
    assert flags("def order(xs):\n    xs.sort()\n    xs.sort(key=abs, reverse=True)\n    return xs") == []


@pytest.mark.parametrize("body", TORCH_SPELLINGS)
def test_torch_compute_is_flagged_only_when_a_kernel_is_asked_for(body):
    assert flagged(flags(body, custom_kernel=True), "torch_fallback"), flags(body, custom_kernel=True)
    assert not flagged(flags(body, custom_kernel=False), "torch_fallback")


def test_operations_inside_a_triton_kernel_are_device_code():
    body = """
    @triton.jit
    def _dot(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
        r = tl.arange(0, BLOCK)
        a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
        b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
        tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], (a @ b).to(tl.float32) + a.sum(axis=0))
    """
    assert flags(body, fp32_task=True) == []


def test_a_decorator_named_jit_from_elsewhere_is_not_a_triton_kernel():
    found = check_python("import numba\nimport torch\n\n@numba.jit\ndef forward(x):\n    return torch.softmax(x, -1)\n")
    assert flagged(found, "no_custom_kernel") and flagged(found, "torch_fallback"), found


# -- 4b. precision in a float32 task, however spelled ---------------------------------------------
DOT = "@triton.jit\ndef _mm(a_ptr, b_ptr, P: tl.constexpr):\n    a = tl.load(a_ptr)\n    b = tl.load(b_ptr)\n"
PRECISION_SPELLINGS = {
    "tf32x3 through a module constant": ("PRECISION = 'tf32x3'\n" + DOT + "    c = tl.dot(a, b, input_precision=PRECISION)",
                                         "input_precision='tf32x3' via PRECISION"),
    "allow_tf32 through a constant": ("TF32 = True\n" + DOT + "    c = tl.dot(a, b, allow_tf32=TF32)",
                                      "allow_tf32=True via TF32"),
    "a precision the checks cannot read": (DOT + "    c = tl.dot(a, b, input_precision=P)",
                                           "input_precision=P (not a constant"),
    "positional precision": (DOT + "    c = tl.dot(a, b, None, 'tf32')", "input_precision='tf32'"),
    "tl.core.float16": (DOT + "    c = a.to(tl.core.float16)", "triton.language.core.float16"),
    "tl.dtype('fp16')": (DOT + "    c = a.to(tl.dtype('fp16'))", "('fp16')"),
    "tl.dtype of a bf16 constant": ("HALF = 'bf' + '16'\n" + DOT + "    c = a.to(tl.dtype(HALF))", "('bf16')"),
}


@pytest.mark.parametrize("body,detail", PRECISION_SPELLINGS.values(), ids=PRECISION_SPELLINGS.keys())
def test_reduced_precision_is_flagged_in_a_float32_task_however_spelled(body, detail):
    assert flagged(flags(body, fp32_task=True), "precision_downgrade", detail), flags(body, fp32_task=True)
    assert not flagged(flags(body, fp32_task=False), "precision_downgrade")


def test_ieee_float32_spelled_through_constants_is_not_a_downgrade():
    body = ("PRECISION = 'ieee'\nNO = False\n" + DOT + "    c = tl.dot(a, b, input_precision=PRECISION)\n"
            "    d = tl.dot(a, b, allow_tf32=NO)\n    e = tl.dot(a, b, None, 'ieee').to(tl.float32)\n")
    assert flags(body, fp32_task=True) == []


# -- 5. no false positives ------------------------------------------------------------------------
HONEST_PYTHON = {
    "set.add": "seen = set()\nseen.add(3)",
    "list.append and dict.get": "sizes = []\nsizes.append(4)\ncache = {}\nbest = cache.get(4)",
    "x.add(y) on an object of unknown type": "def merge(acc, item):\n    acc.add(item)\n    return acc",
    "logger.log": "import logging\nlog = logging.getLogger(__name__)\nlog.log(20, 'launch')",
    "a local class's methods": "class Vec:\n    def add(self, o):\n        return self\n\n    def sum(self):\n"
                               "        return 0\n\nv = Vec().add(Vec()).sum()",
    "math and builtins": "import math\nwidth = max(16, min(1024, 2 ** math.ceil(math.log2(100))))",
    "finfo max": "NEG = torch.finfo(torch.float32).max",
    "a parameter named like a builtin": "def launch(input, compile=False):\n    return input",
    "unused import of functional": "import torch.nn.functional as F",
}


@pytest.mark.parametrize("body", HONEST_PYTHON.values(), ids=HONEST_PYTHON.keys())
def test_ordinary_python_is_not_flagged(body):
    assert flags(body, fp32_task=True) == []


@pytest.mark.parametrize("source", [
    "__global__ void k(float* x, int n) { int half = n / 2; if (threadIdx.x < half) x[threadIdx.x] *= 2.f; }",
    "__global__ void k(float* x, int n) { const int half = n >> 1; x[half] = 0.f; }",
    "__device__ int half_of(int n) { return n / 2; }\n"
    "__global__ void k(int* x) { int half = half_of(x[0]); x[1] = half; }",
    "__global__ void k(float* x) { const int thread = threadIdx.x; x[thread] = 0.f; }",
    "__global__ void k(float* x, long ks) { const long c = 3, half = ks / 2; x[c] = x[half]; }",
    "__device__ float remove(float v) { return v; }\n__global__ void k(float* x) { x[0] = remove(x[0]); }",
])
def test_ordinary_words_the_kernel_declares_are_not_library_calls(source):
    assert check_native(source, fp32_task=True) == []


@pytest.mark.parametrize("source,flag", [
    ("#include <cuda_fp16.h>\n__global__ void k(const half* x, float* y) { y[0] = __half2float(x[0]); }",
     "precision_downgrade: half "),
    ("__global__ void k(half2* x) { }", "precision_downgrade: half2 "),
    ("__global__ void k(float* x) { x[0] = __half2float(__float2half(x[0])); }", "precision_downgrade: __float2half "),
    ("__global__ void k(float* y) { int half = 2; std::thread t([]{}); }", "thread_injection: thread "),
    ("__global__ void k(float a, half b) { }", "precision_downgrade: half "),
    ("__global__ void k(float* y, half* x, int n) { y[0] = f(n, half(x[0])); }", "precision_downgrade: half "),
])
def test_real_half_types_and_library_calls_are_still_flagged(source, flag):
    found = check_native(source, fp32_task=True)
    assert any(f.startswith(flag) for f in found), found


# -- honest kernels: the tasks' solutions and the X->X baselines (what noop submits) --------------
SOLUTIONS = sorted(p for p in (REPO / "tasks").glob("*/*/solution/*") if p.suffix in (".py", ".cu", ".hip"))
BASELINES = sorted(p for cat in ("cuda2cuda", "hip2hip", "triton2triton") for p in (REPO / "tasks" / cat).glob("*/kernel.*"))


@functools.lru_cache(maxsize=None)
def _float32_task(task_dir: Path) -> bool:
    """The judge's own answer (its warm-up on the first seen config, on the CPU): is the task float32?"""
    from runner.evaluator.judge.evaluation import _warm_up, import_reference
    from runner.tasks.task import load_task
    task = load_task(task_dir, REPO / "tasks")
    return _warm_up(import_reference(task.reference), task, "cpu")


@pytest.mark.parametrize("path", SOLUTIONS + BASELINES, ids=lambda p: str(p.relative_to(REPO / "tasks")))
def test_task_solutions_and_baselines_are_not_flagged(path):
    source = path.read_text()
    fp32 = _float32_task(path.parent.parent if path.parent.name == "solution" else path.parent)
    if path.suffix == ".py":
        assert check_python(source, custom_kernel=True, fp32_task=fp32, filename="kernel.py") == []
    else:
        assert check_native(source, fp32_task=fp32, filename=path.name) == []


def test_solutions_cover_a_triton_and_a_cuda_kernel():
    assert {p.suffix for p in SOLUTIONS} >= {".py", ".cu"}


# -- 6. the format the evaluator reports --------------------------------------------------------
def test_flags_name_kind_detail_file_and_line():
    found = flags("import os\nf = torch.softmax\n\ndef forward(x):\n    return f(x)")
    assert found and all(FLAG.match(f) for f in found), found
    assert "process_control: import os (kernel.py:10)" in found


@pytest.mark.parametrize("source", ["x = " + " + ".join(["1"] * 5000),
                                    "_x = " + "-" * 100000 + "1"])     # the parser's MemoryError (red team, session 23)
def test_a_file_nested_too_deeply_to_check_is_flagged_not_a_crash(source):
    """Never the judge's error (an infra_error the candidate could cause, and so a free retry)."""
    found = flags(source)
    assert found == ["obfuscation: expressions nested too deeply to check (kernel.py)"]


def test_a_kernel_in_one_of_several_editable_python_files_is_a_custom_kernel(tmp_path):
    """An imported task's entry may only call the kernel's module (AgentKernelArena's in-place
    kernels get a gauntlet_entry.py): one editable Python file holding the kernel is enough; none is not."""
    from types import SimpleNamespace

    from runner.evaluator.judge.evaluation import static_flags
    (tmp_path / "entry.py").write_text("from kernel_mod import run\n\n\ndef forward(x):\n    return run(x)\n")
    (tmp_path / "kernel_mod.py").write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef _k(x_ptr):\n    pass\n\n\n"
        "def run(x):\n    _k[(1,)](x)\n    return x\n")
    task = SimpleNamespace(editable=("entry.py", "kernel_mod.py"), entry="entry.py")
    assert not [f for f in static_flags(task, tmp_path, False) if f.startswith("no_custom_kernel")]
    (tmp_path / "kernel_mod.py").write_text("def run(x):\n    return x\n")
    assert [f for f in static_flags(task, tmp_path, False) if f.startswith("no_custom_kernel")]


# -- PyTorch's C++ API computing inside a torch extension (PyTorch->X tasks) ---------------------
# A realistic honest launcher: allocation, metadata, views, guards, the current stream, dispatch
# macros, device helpers named like ATen ops, cooperative groups, a struct of its own with .add().
HONEST_EXTENSION = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>
#include <cooperative_groups.h>
#include <vector>
namespace cg = cooperative_groups;
using namespace torch::indexing;
#define CHECK_INPUT(x) TORCH_CHECK(x.is_cuda() && x.is_contiguous(), #x " must be a contiguous CUDA tensor")
#define THREADS 256

struct Welford { float mean, m2; int n;
    __device__ void add(float v) { n += 1; float d = v - mean; mean += d / n; m2 += d * (v - mean); } };

template <typename T> __device__ __forceinline__ T sigmoid(T x) { return T(1) / (T(1) + exp(-x)); }

template <typename scalar_t>
__global__ void fused_kernel(const scalar_t* __restrict__ x, scalar_t* __restrict__ y, int64_t rows, int64_t cols,
                             at::PackedTensorAccessor32<scalar_t, 2, at::RestrictPtrTraits> acc) {
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
    using acc_t = at::acc_type<scalar_t, true>;
    acc_t v = static_cast<acc_t>(x[blockIdx.x * cols + threadIdx.x]);
    Welford w{0.f, 0.f, 0}; w.add(v);
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffff, v, o));
    if (tile.any(v > 0)) y[blockIdx.x] = sigmoid(v) + sqrt(fabs(v)) + min(v, acc_t(0)) + acc[0][0];
    v = v > at::numeric_limits<acc_t>::lower_bound() ? v : acc_t(0);
}

std::vector<torch::Tensor> forward(torch::Tensor x, torch::Tensor w, double alpha) {
    CHECK_INPUT(x);
    TORCH_CHECK(x.dim() == 2 && x.scalar_type() == at::kFloat && x.device().is_cuda(), "bad x");
    const at::cuda::OptionalCUDAGuard device_guard(device_of(x));
    auto xc = x.contiguous().view({x.size(0), -1}).to(x.options().dtype(torch::kFloat32));
    auto y = torch::empty_like(xc);
    auto z = at::empty({xc.size(0)}, xc.options());
    auto part = xc.narrow(0, 0, 1).transpose(0, 1).reshape({-1}).slice(0, 0, 1).unsqueeze(-1);
    auto head = Slice(0, 1);
    z.zero_(); y.copy_(xc); z.fill_(0);
    std::vector<int64_t> shape(xc.sizes().begin(), xc.sizes().end()); shape.resize(2);
    const int64_t rows = xc.size(0), cols = xc.stride(0);
    const int blocks = (int)std::min<int64_t>(rows, at::cuda::getCurrentDeviceProperties()->multiProcessorCount * 4);
    cudaStream_t stream = at::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND_HALF(xc.scalar_type(), "fused", ([&] {
        fused_kernel<scalar_t><<<dim3(blocks), dim3(THREADS), 0, stream>>>(
            xc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(), rows, cols,
            y.packed_accessor32<scalar_t, 2, at::RestrictPtrTraits>());
    }));
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    if (x.scalar_type() == at::ScalarType::Half || xc.numel() == 0 || shape.size() > 2) return {y};
    return {y, z, part};
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward, "fused (CUDA)", py::arg("x")); }
"""

HONEST_CUB_EXTENSION = r"""
#include <torch/extension.h>
#include <cub/cub.cuh>
#include <c10/hip/HIPStream.h>

template <int BLOCK>
__global__ void row_sum(const float* __restrict__ x, float* __restrict__ y, int cols) {
    using BlockReduce = cub::BlockReduce<float, BLOCK>;
    __shared__ typename BlockReduce::TempStorage temp;
    float acc = 0.f;
    for (int c = threadIdx.x; c < cols; c += BLOCK) acc += expf(x[blockIdx.x * cols + c]);
    float total = BlockReduce(temp).Sum(acc);
    if (threadIdx.x == 0) y[blockIdx.x] = logf(total);
}

torch::Tensor forward(const torch::Tensor& x) {
    TORCH_CHECK(x.is_cuda(), "x must be on the GPU");
    auto out = torch::zeros({x.size(0)}, torch::TensorOptions().dtype(torch::kFloat).device(x.device()));
    hipLaunchKernelGGL(row_sum<256>, dim3(x.size(0)), dim3(256), 0, c10::hip::getCurrentHIPStream(),
                       x.data_ptr<float>(), out.data_ptr<float>(), (int)x.size(1));
    return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward); }
"""

# Each a way to compute with PyTorch from a torch extension (the file keeps a __global__ kernel).
_EXT = "#include <torch/extension.h>\n__global__ void k(float* y) { y[0] = 1.f; }\n"
_F = "torch::Tensor forward(torch::Tensor a, torch::Tensor w)"
TORCH_NATIVE_CHEATS = {
    "qualified at::matmul": (f"{_F} {{ return at::matmul(a, w); }}", "at::matmul"),
    "torch::softmax": ("torch::Tensor forward(torch::Tensor a) { return torch::softmax(a, 1); }", "torch::softmax"),
    "a tensor method": (f"{_F} {{ return a.mm(w); }}", ".mm()"),
    "an in-place tensor method": (f"{_F} {{ return a.mul_(2); }}", ".mul_()"),
    "past the dispatcher: at::native": (f"{_F} {{ return at::native::mm(a, w); }}", "at::native::mm"),
    "PyTorch's BLAS": ("void gemm(float* a, float* b, float* c) {\n"
                       "  at::cuda::blas::gemm<float>('n', 'n', 1, 1, 1, 1.f, a, 1, b, 1, 0.f, c, 1); }",
                       "at::cuda::blas::gemm"),
    "an operator's call": (f"{_F} {{ return at::_ops::mm::call(a, w); }}", "at::_ops::mm::call"),
    "the dispatcher": ("auto op = c10::Dispatcher::singleton().findSchemaOrThrow(\"aten::mm\", \"\");",
                       "c10::Dispatcher::singleton"),
    "torch::nn::functional": ("torch::Tensor forward(torch::Tensor a) { return torch::nn::functional::gelu(a); }",
                              "torch::nn::functional::gelu"),
    "using namespace torch": (f"using namespace torch;\n{_F} {{ return matmul(a, w); }}", "matmul()"),
    "argument-dependent lookup": (f"{_F} {{ return matmul(a, w); }}", "matmul()"),
    "a using-declaration": (f"using at::matmul;\n{_F} {{ return matmul(a, w); }}", "at::matmul"),
    "inside namespace at": ("namespace at { Tensor f(const Tensor& a, const Tensor& w) { return mm(a, w); } }",
                            "mm()"),
    "a namespace alias": (f"namespace T = torch;\n{_F} {{ return T::matmul(a, w); }}", "torch::matmul via T::matmul"),
    "an alias of a compute namespace": ("namespace F = torch::nn::functional;\n"
                                        "torch::Tensor forward(torch::Tensor a) { return F::gelu(a); }",
                                        "torch::nn::functional::gelu via F::gelu"),
    "a #define of the call": (f"#define MM at::matmul\n{_F} {{ return MM(a, w); }}", "at::matmul"),
    "a #define of the namespace": (f"#define NS at\n{_F} {{ return NS::matmul(a, w); }}", "at::matmul"),
    "a member pointer": ("auto op = &at::Tensor::mm;", "at::Tensor::mm"),
    "a tensor index (a gather)": (f"{_F} {{ return w.index({{a}}); }}", ".index()"),
}


def _torch_fallbacks(source: str, torch_task: bool = True) -> list[str]:
    return [f for f in check_native(source, torch_task=torch_task) if f.startswith("torch_fallback")]


@pytest.mark.parametrize("source", [HONEST_EXTENSION, HONEST_CUB_EXTENSION], ids=["launcher", "cub"])
def test_an_honest_torch_extension_is_not_a_torch_fallback(source):
    assert check_native(source, torch_task=True) == []


@pytest.mark.parametrize("body,detail", TORCH_NATIVE_CHEATS.values(), ids=TORCH_NATIVE_CHEATS.keys())
def test_pytorch_compute_in_a_torch_extension_is_flagged(body, detail):
    assert f"torch_fallback: {detail} (kernel.cu)" in _torch_fallbacks(_EXT + body)


@pytest.mark.parametrize("body,detail", TORCH_NATIVE_CHEATS.values(), ids=TORCH_NATIVE_CHEATS.keys())
def test_an_x_to_x_task_may_use_pytorchs_cpp_api(body, detail):
    """hip2hip/cuda2cuda sources ship with at:: glue of their own: the rule is PyTorch->X's only."""
    assert _torch_fallbacks(_EXT + body, torch_task=False) == []


def test_a_file_without_pytorch_is_not_read_for_unqualified_aten_names():
    """A plain kernel's own `sum(...)`/`.norm()` names cannot be PyTorch's: it holds no Tensor."""
    source = "__device__ float sum(float a, float b) { return a + b; }\n" \
             "__global__ void k(float* y, Vec v) { y[0] = sum(y[0], y[1]) + v.norm() + where(y[2]); }"
    assert _torch_fallbacks(source) == []


def _tasks_with_solutions():
    from runner.tasks.task import discover, load_task
    roots = (REPO / "tasks", REPO / "tests" / "fixtures" / "torch_ext_tasks")
    return [task for root in roots for d in discover(root) if (task := load_task(d, root)).solution_dir is not None]


def test_the_solutions_of_pytorch_tasks_compute_without_pytorch():
    """Every PyTorch->X task's own solution (built-in and the torch-extension fixtures), through the
    judge's static_flags, has no torch_fallback; the at::mul cheats of the fixtures have."""
    from runner.evaluator.judge.evaluation import static_flags
    tasks = [t for t in _tasks_with_solutions() if t.baseline_is_reference]
    native = [t for t in tasks if any(not rel.endswith(".py") for rel in t.editable)]
    assert len(native) > 40 and any(t.kind == "torch-extension" for t in native)
    flagged = {t.id: f for t in native
               if (f := [x for x in static_flags(t, t.solution_dir, False) if x.startswith("torch_fallback")])}
    assert flagged == {}
    for cheat in ("fallback_cu", "fallback_hip"):
        folder = REPO / "tests" / "fixtures" / "torch_ext_candidates" / cheat
        source = next(folder.iterdir()).read_text()
        assert _torch_fallbacks(source) == ["torch_fallback: at::mul (kernel.cu)"]


PYTHON_FROM_CXX = {
    "pybind11 import": 'auto t = py::module_::import("torch");\nreturn t.attr("softmax")(x, -1).cast<torch::Tensor>();',
    "pybind11 import, old spelling": 'auto t = pybind11::module::import("torch");',
    "pybind11 eval": 'py::eval("__import__(\'torch\').softmax")(x, -1);',
    "CPython API": 'PyObject* t = PyImport_ImportModule("torch");',
    "CPython run": 'PyRun_SimpleString("import torch");',
}


@pytest.mark.parametrize("body", PYTHON_FROM_CXX.values(), ids=PYTHON_FROM_CXX.keys())
def test_the_python_interpreter_reached_from_cxx_is_flagged(body):
    """A torch extension is loaded into the runner's Python: from C++ it can import torch and call
    any op, where no Python check reads it. PYBIND11_MODULE and m.def, which every extension needs,
    are not flagged."""
    source = ("#include <torch/extension.h>\n__global__ void k(float* y) {}\n"
              f"torch::Tensor forward(torch::Tensor x) {{\n{body}\nreturn x;\n}}\n"
              'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("forward", &forward); }\n')
    assert any(f.startswith("introspection:") for f in check_native(source)), check_native(source)
    assert not any(f.startswith("introspection:")
                   for f in check_native(source.replace(body, "")))
