"""Shared helpers for the flashfit_attention tests (run by ctest: tests/python/CMakeLists.txt).

The module under test is python/flashfit_attention.py of this checkout, or the file named by
FLASHFIT_ATTENTION_MODULE (the integration test points it at an installed wheel's copy)."""

import importlib.util
import os
import sys

import pytest
import torch

# One thread: the test machines are small and shared, and torch's spinning worker threads make
# a loaded machine several times slower on these tiny tensors.
torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
MODULE = os.environ.get("FLASHFIT_ATTENTION_MODULE") or os.path.join(
    HERE, "..", "..", "python", "flashfit_attention.py")


def _load():
    spec = importlib.util.spec_from_file_location("flashfit_attention", MODULE)
    module = importlib.util.module_from_spec(spec)
    sys.modules["flashfit_attention"] = module
    spec.loader.exec_module(module)
    return module


fa = _load()
HAS_SDPA = hasattr(torch.nn.functional, "scaled_dot_product_attention")
# The fallback paths this torch can run; "sdpa" on torch < 2.0 would run "math" anyway.
PATHS = ["sdpa", "math"] if HAS_SDPA else ["math"]


@pytest.fixture(params=PATHS)
def path(request):
    """Runs a test once per fallback path, pinned with force_backend, and asserts the pin held."""
    fa.force_backend(request.param)
    yield request.param
    fa.force_backend(None)


@pytest.fixture(autouse=True)
def _fresh_decisions():
    fa.force_backend(None)
    yield
    fa.force_backend(None)


def lists(t):
    return t.detach().to(torch.float64).tolist()


def assert_close(actual, expected_lists, atol, rtol=0.0):
    expected = torch.tensor(expected_lists, dtype=torch.float64) if expected_lists else None
    actual = actual.detach().to(torch.float64)
    if expected is None or expected.numel() == 0:
        assert actual.numel() == 0, "expected an empty result, got shape %s" % (actual.shape,)
        return
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert not torch.isnan(actual).any(), "NaN in the output"
    error = (actual - expected).abs()
    bound = atol + rtol * expected.abs()
    excess = (error - bound).flatten()
    worst = int(excess.argmax())
    assert excess[worst].item() <= 0, "error %.3g at flat index %d exceeds %.1g + %.1g * |%.4g|" % (
        error.flatten()[worst].item(), worst, atol, rtol, expected.flatten()[worst].item())

def make(batch, seqlen_q, seqlen_k, nheads, nheads_k, head_dim, v_dim=None, dtype=torch.float64,
         seed=0, spread=1.0):
    g = torch.Generator().manual_seed(seed)
    v_dim = head_dim if v_dim is None else v_dim
    q = torch.randn(batch, seqlen_q, nheads, head_dim, generator=g, dtype=torch.float64) * spread
    k = torch.randn(batch, seqlen_k, nheads_k, head_dim, generator=g, dtype=torch.float64)
    v = torch.randn(batch, seqlen_k, nheads_k, v_dim, generator=g, dtype=torch.float64)
    return q.to(dtype), k.to(dtype), v.to(dtype)


def slopes(shape, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(*shape, generator=g, dtype=torch.float64) * 0.5 + 0.05
