"""The dispatch: which path, why, decided once per shape class and logged once.

flash-attn cannot run here (it needs a CUDA GPU), so its side is a small fake package on sys.path
with flash-attn's function names, and the device capability comes from a patched
torch.cuda.get_device_capability: the stub stands in only for the GPU. The real comparison is
test_gpu.py."""

import logging
import os
import subprocess
import sys
import textwrap

import pytest
import torch

from conftest import HAS_SDPA, MODULE, fa, make

CUDA = torch.device("cuda", 0)
FALLBACK = "sdpa" if HAS_SDPA else "math"


def fake_flash(tmp_path, monkeypatch, version="2.8.3", body="return q.new_full(q.shape, 7.0)",
               import_error=None):
    """A flash_attn package whose functions record their calls in flash_attn.calls."""
    package = tmp_path / "flash_attn"
    package.mkdir()
    if import_error:
        source = "raise ImportError(%r)\n" % import_error
    else:
        source = textwrap.dedent("""\
            __version__ = %r
            calls = []
            def flash_attn_func(q, k, v, *args, **kwargs):
                calls.append(("dense", args, kwargs))
                %s
            def flash_attn_varlen_func(q, k, v, *args, **kwargs):
                calls.append(("varlen", args, kwargs))
                %s
            """) % (version, body, body)
    (package / "__init__.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(fa, "_flash", None)
    for name in list(sys.modules):
        if name == "flash_attn" or name.startswith("flash_attn."):
            monkeypatch.delitem(sys.modules, name)


def decide(dtype=torch.float16, head_dim=64, v_head_dim=None, features=0, device=CUDA):
    return fa._decide(None, device, dtype, head_dim, v_head_dim or head_dim, features)


def test_cpu_tensors_fall_back_and_say_why():
    q, k, v = make(1, 2, 2, 1, 1, 4)
    choice = fa.backend(q, k, v)
    assert choice.name == FALLBACK
    expected = "SDPA: cpu tensors (flash-attn needs CUDA)" if HAS_SDPA \
        else "math: torch < 2.0; cpu tensors (flash-attn needs CUDA)"
    assert str(choice) == expected


@pytest.mark.skipif(not HAS_SDPA, reason="torch < 2.0: every call takes the math path")
def test_softcap_takes_the_math_path_and_says_why():
    q, k, v = make(1, 2, 2, 1, 1, 4)
    assert str(fa.backend(q, k, v, softcap=1.0)) == \
        "math: softcap needs a score hook SDPA lacks; cpu tensors (flash-attn needs CUDA)"


@pytest.mark.skipif(HAS_SDPA, reason="torch >= 2.0 has SDPA")
def test_old_torch_takes_the_math_path():
    assert str(fa.backend()).startswith("math: torch < 2.0")


def test_decided_once_per_shape_class_and_logged_once(caplog):
    caplog.set_level(logging.INFO, logger="flashfit_attention")
    q, k, v = make(1, 3, 3, 2, 2, 4)
    for _ in range(5):
        fa.attention(q, k, v, causal=True)
    assert len(caplog.records) == 1
    assert "features none" in caplog.records[0].getMessage()
    q2, k2, v2 = make(1, 3, 5, 2, 2, 4)  # another class: causal with seqlen_q != seqlen_k
    for _ in range(3):
        fa.attention(q2, k2, v2, causal=True)
    assert len(caplog.records) == 2
    assert "misaligned-causal" in caplog.records[1].getMessage()
    q3, k3, v3 = make(1, 9, 9, 2, 2, 4)  # same class as the first: no new line
    fa.attention(q3, k3, v3, causal=True)
    assert len(caplog.records) == 2


@pytest.mark.skipif(torch.cuda.is_available(), reason="a real GPU: test_gpu.py covers it")
def test_flash_attn_not_installed(monkeypatch):
    monkeypatch.setattr(fa, "_flash", None)
    try:
        import flash_attn  # noqa: F401
        pytest.skip("flash-attn is installed here")
    except ImportError:
        pass
    assert str(decide()) == "SDPA: flash-attn not installed" if HAS_SDPA \
        else str(decide()).startswith("math: torch < 2.0; flash-attn not installed")


def test_flash_attn_that_does_not_import(tmp_path, monkeypatch):
    fake_flash(tmp_path, monkeypatch, import_error="/x/flash_attn_2_cuda.so: undefined symbol: "
               "_ZN3c105ErrorC2ENS_14SourceLocationESs")
    assert decide().reason.endswith(
        "flash-attn does not import (ImportError: /x/flash_attn_2_cuda.so: undefined symbol: "
        "_ZN3c105ErrorC2ENS_14SourceLocationESs)")


@pytest.mark.parametrize("capability,dtype,head_dim,v_head_dim,features,version,expected", [
    ((8, 9), torch.float16, 64, 64, 0, "2.8.3", "flash-attn 2.8.3 on sm_89"),
    ((9, 0), torch.bfloat16, 256, 256, 63 - 16, "2.8.3", "flash-attn 2.8.3 on sm_90"),
    ((7, 5), torch.float16, 64, 64, 0, "2.8.3", "compute capability 7.5 < 8.0"),
    ((8, 0), torch.float32, 64, 64, 0, "2.8.3", "float32 input"),
    ((8, 0), torch.float16, 512, 512, 0, "2.8.3", "head dim 512 > 256"),
    ((8, 0), torch.float16, 64, 32, 0, "2.8.3", "value head dim 32 != query head dim 64"),
    ((8, 0), torch.float16, 64, 64, 1, "2.0.9",
     "flash-attn 2.0.9 has no causal with seqlen_q != seqlen_k (bottom-right) (needs 2.1)"),
    ((8, 0), torch.float16, 64, 64, 2, "2.2.0",
     "flash-attn 2.2.0 has no sliding windows (needs 2.3)"),
    ((8, 0), torch.float16, 64, 64, 8, "2.3.6", "flash-attn 2.3.6 has no ALiBi (needs 2.4)"),
    ((8, 0), torch.float16, 64, 64, 4, "2.5.9.post1",
     "flash-attn 2.5.9.post1 has no softcap (needs 2.6)"),
    ((8, 0), torch.float16, 64, 64, 4 | 16, "2.8.3", "flash-attn has no dropout with softcap"),
])
def test_flash_attn_gates(tmp_path, monkeypatch, capability, dtype, head_dim, v_head_dim, features,
                          version, expected):
    fake_flash(tmp_path, monkeypatch, version=version)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device=None: capability)
    monkeypatch.setattr(torch.version, "hip", None, raising=False)
    choice = decide(dtype, head_dim, v_head_dim, features)
    if " on sm_" in expected:
        assert choice.name == "flash-attn" and choice == expected
    else:
        assert choice.name in ("sdpa", "math")
        assert expected in choice.reason


def route_cpu_calls_to_flash(monkeypatch):
    """Pretend the CPU can run flash-attn, so attention() reaches the fake."""
    monkeypatch.setattr(fa, "_flash_blocker", lambda *args: (None, "flash-attn fake on sm_80"))


def test_calls_flash_attn_with_its_own_arguments(tmp_path, monkeypatch):
    fake_flash(tmp_path, monkeypatch)
    route_cpu_calls_to_flash(monkeypatch)
    q, k, v = make(2, 3, 4, 4, 2, 8)
    out = fa.attention(q, k, v, causal=True, softmax_scale=0.5)
    assert torch.all(out == 7.0)
    import flash_attn
    kind, args, kwargs = flash_attn.calls[-1]
    assert kind == "dense" and args == (0.0, 0.5, True) and kwargs == {}
    slopes = torch.ones(4, dtype=torch.float64)
    fa.attention(q, k, v, window=(3, 1), softcap=2.0, alibi_slopes=slopes, deterministic=True)
    kind, args, kwargs = flash_attn.calls[-1]
    assert kwargs["window_size"] == (3, 1) and kwargs["softcap"] == 2.0
    assert kwargs["deterministic"] is True
    assert kwargs["alibi_slopes"].dtype == torch.float32  # flash-attn requires fp32 slopes
    cu = torch.tensor([0, 3, 6], dtype=torch.int32)
    fa.attention_varlen(q.reshape(6, 4, 8), k[:, :3].reshape(6, 2, 8), v[:, :3].reshape(6, 2, 8),
                        cu, cu, 3, 3, causal=True)
    kind, args, kwargs = flash_attn.calls[-1]
    assert kind == "varlen" and args[2:] == (3, 3, 0.0, None, True)
    choice = fa.backend(q, k, v)
    assert choice.name == "flash-attn" and choice == "flash-attn fake on sm_80"
    assert "%s" % choice == "flash-attn fake on sm_80"  # prints and formats as its sentence
    assert repr(choice) == "Backend('flash-attn', 'flash-attn fake on sm_80')"


def test_flash_attn_failing_at_first_call_falls_back_for_good(tmp_path, monkeypatch, caplog):
    fake_flash(tmp_path, monkeypatch, body="raise RuntimeError("
               "'FlashAttention only supports Ampere GPUs or newer.')")
    route_cpu_calls_to_flash(monkeypatch)
    caplog.set_level(logging.INFO, logger="flashfit_attention")
    q, k, v = make(2, 3, 4, 4, 2, 8)
    out = fa.attention(q, k, v, causal=True)
    import flash_attn
    assert len(flash_attn.calls) == 1
    fa.attention(q, k, v, causal=True)
    assert len(flash_attn.calls) == 1  # not tried again
    choice = fa.backend(q, k, v, causal=True)
    assert choice.name == FALLBACK
    assert "flash-attn failed at its first call (FlashAttention only supports Ampere GPUs or " \
           "newer.)" in choice.reason
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    fa.force_backend(FALLBACK)
    assert torch.equal(out, fa.attention(q, k, v, causal=True))


def test_other_flash_attn_errors_propagate(tmp_path, monkeypatch):
    fake_flash(tmp_path, monkeypatch, body="raise RuntimeError('CUDA out of memory')")
    route_cpu_calls_to_flash(monkeypatch)
    q, k, v = make(1, 2, 2, 1, 1, 8)
    with pytest.raises(RuntimeError, match="CUDA out of memory"):
        fa.attention(q, k, v)


def test_forced_flash_attn_that_cannot_run_raises():
    fa.force_backend("flash-attn")
    q, k, v = make(1, 2, 2, 1, 1, 4)
    with pytest.raises(RuntimeError, match="flash-attn was forced but cannot run this call: cpu "
                                           "tensors"):
        fa.attention(q, k, v)


def run_with_env(value, code):
    env = dict(os.environ, FLASHFIT_ATTENTION_BACKEND=value, PYTHONPATH=os.path.dirname(MODULE))
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_environment_variable_pins_the_path():
    done = run_with_env("math", "import flashfit_attention as f; print(f.backend())")
    assert done.returncode == 0, done.stderr
    expected = "math: forced" if HAS_SDPA \
        else "math: torch < 2.0; cpu tensors (flash-attn needs CUDA)"
    assert done.stdout.strip() == expected


def test_environment_variable_typo_is_an_error():
    done = run_with_env("sdap", "import flashfit_attention")
    assert done.returncode != 0
    assert "FLASHFIT_ATTENTION_BACKEND='sdap': expected one of auto, flash-attn, sdpa, math" \
        in done.stderr
