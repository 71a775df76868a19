"""Property tests over random shapes and options (hypothesis, derandomized so CI is repeatable):
the dispatched call equals the independent reference; varlen equals the dense call per sequence."""

import torch
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import PATHS, assert_close, fa, lists
from reference import reference_dense, reference_varlen

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))
side = st.one_of(st.just(-1), st.integers(0, 10))


@st.composite
def calls(draw):
    nheads_k = draw(st.integers(1, 3))
    group = draw(st.sampled_from([1, 2, 3, 8]))
    shape = dict(batch=draw(st.integers(1, 3)), seqlen_q=draw(st.integers(0, 9)),
                 seqlen_k=draw(st.integers(0, 9)), nheads=nheads_k * group, nheads_k=nheads_k,
                 head_dim=draw(st.integers(1, 12)), v_dim=draw(st.integers(1, 12)))
    alibi = draw(st.sampled_from([None, "heads", "batch-heads"]))
    options = dict(causal=draw(st.booleans()), window=(draw(side), draw(side)),
                   softcap=draw(st.sampled_from([0.0, 0.0, 1.5, 20.0])),
                   softmax_scale=draw(st.sampled_from([None, 0.3, 1.7])))
    return shape, alibi, options, draw(st.sampled_from(PATHS)), draw(st.integers(0, 2**31))


def tensors(shape, alibi, seed):
    g = torch.Generator().manual_seed(seed)
    b, sq, sk = shape["batch"], shape["seqlen_q"], shape["seqlen_k"]
    q = torch.randn(b, sq, shape["nheads"], shape["head_dim"], generator=g, dtype=torch.float64)
    k = torch.randn(b, sk, shape["nheads_k"], shape["head_dim"], generator=g, dtype=torch.float64)
    v = torch.randn(b, sk, shape["nheads_k"], shape["v_dim"], generator=g, dtype=torch.float64)
    s = None
    if alibi is not None:
        dims = (shape["nheads"],) if alibi == "heads" else (b, shape["nheads"])
        s = torch.rand(*dims, generator=g, dtype=torch.float64)
    return q, k, v, s


@SETTINGS
@given(calls())
def test_dense_matches_reference(call):
    shape, alibi, options, path, seed = call
    q, k, v, s = tensors(shape, alibi, seed)
    fa.force_backend(path)
    try:
        out = fa.attention(q, k, v, alibi_slopes=s, **options)
    finally:
        fa.force_backend(None)
    assert out.shape == (shape["batch"], shape["seqlen_q"], shape["nheads"], shape["v_dim"])
    ref = reference_dense(lists(q), lists(k), lists(v), alibi_slopes=None if s is None
                          else lists(s), v_dim=shape["v_dim"], **options)
    assert_close(out, ref, 1e-5)


@SETTINGS
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=4),
       st.booleans(), side, side, st.sampled_from(PATHS), st.integers(0, 2**31))
def test_varlen_matches_reference(lengths, causal, left, right, path, seed):
    g = torch.Generator().manual_seed(seed)
    lq = [a for a, _ in lengths]
    lk = [b for _, b in lengths]
    q = torch.randn(sum(lq), 4, 5, generator=g, dtype=torch.float64)
    k = torch.randn(sum(lk), 2, 5, generator=g, dtype=torch.float64)
    v = torch.randn(sum(lk), 2, 3, generator=g, dtype=torch.float64)
    cu_q = torch.tensor([sum(lq[:i]) for i in range(len(lq) + 1)], dtype=torch.int32)
    cu_k = torch.tensor([sum(lk[:i]) for i in range(len(lk) + 1)], dtype=torch.int32)
    max_k = max(lk) + (seed % 3)  # max_seqlen may exceed the longest sequence
    fa.force_backend(path)
    try:
        out = fa.attention_varlen(q, k, v, cu_q, cu_k, max(lq), max_k, causal=causal,
                                  window=(left, right))
    finally:
        fa.force_backend(None)
    ref = reference_varlen(lists(q), lists(k), lists(v), cu_q.tolist(), cu_k.tolist(), max_k,
                           causal=causal, window=(left, right), v_dim=3)
    assert_close(out, ref, 1e-5)
