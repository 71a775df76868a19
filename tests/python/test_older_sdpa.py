"""The SDPA path as torch 2.0 and 2.1 run it: no `enable_gqa` (< 2.5: heads repeated), no
`scale` (< 2.1: q pre-scaled), no `causal_lower_right` (< 2.2: an explicit mask). Only the
feature flags are switched off; SDPA itself is this torch's."""

import itertools

import pytest
import torch

from conftest import HAS_SDPA, assert_close, fa, lists, make, slopes
from reference import reference_dense

pytestmark = pytest.mark.skipif(not HAS_SDPA, reason="torch < 2.0 has no SDPA")


@pytest.fixture(params=["2.0", "2.1", "2.2"])
def older_torch(request, monkeypatch):
    monkeypatch.setattr(fa, "_SDPA_HAS_GQA", False)
    monkeypatch.setattr(fa, "_SDPA_HAS_SCALE", request.param != "2.0")
    if request.param in ("2.0", "2.1"):
        monkeypatch.setattr(fa, "_causal_lower_right", None)
    fa.force_backend("sdpa")
    yield request.param
    fa.force_backend(None)


@pytest.mark.parametrize("seqlens,causal,heads,scale,window", list(itertools.product(
    [(4, 4), (3, 7), (7, 3)], [False, True], [(4, 4), (8, 1), (6, 2)], [None, 0.7],
    [(-1, -1), (2, 0)])))
def test_older_sdpa_matches_reference(older_torch, seqlens, causal, heads, scale, window):
    q, k, v = make(2, seqlens[0], seqlens[1], heads[0], heads[1], 8, seed=3)
    options = dict(causal=causal, softmax_scale=scale, window=window)
    out = fa.attention(q, k, v, **options)
    assert fa.backend(q, k, v, causal=causal, window=window).name == "sdpa"
    assert_close(out, reference_dense(lists(q), lists(k), lists(v), **options), 1e-5)


def test_older_sdpa_alibi(older_torch):
    q, k, v = make(2, 5, 3, 8, 2, 8)
    s = slopes((2, 8))
    out = fa.attention(q, k, v, causal=True, alibi_slopes=s)
    ref = reference_dense(lists(q), lists(k), lists(v), causal=True, alibi_slopes=lists(s))
    assert_close(out, ref, 1e-5)
