"""The real flash-attn on a real GPU, when this machine has both: the dispatcher must pick it,
and its output must agree with the fallback paths and the reference as closely as flash-attn's own
tests demand (error no more than twice that of PyTorch in the same dtype, plus a small floor).

Skipped, saying so, on machines without a CUDA GPU or without flash-attn."""

import pytest
import torch

from conftest import fa, lists, make, slopes
from reference import reference_dense

if not torch.cuda.is_available():
    pytest.skip("no CUDA GPU on this machine (no GPU lent to this run): the comparison with the "
                "real flash-attn did not run", allow_module_level=True)
try:
    import flash_attn  # noqa: F401  (only whether it imports)
except Exception as error:  # not installed, or does not import
    pytest.skip("flash-attn does not import here (%s): the comparison with the real flash-attn "
                "did not run" % error, allow_module_level=True)

CASES = [dict(), dict(causal=True), dict(causal=True, window=(16, 0)), dict(window=(8, 8)),
         dict(softcap=5.0), dict(alibi=True, causal=True)]


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16], ids=["fp16", "bf16"])
@pytest.mark.parametrize("options", CASES, ids=lambda o: "-".join(sorted(o)) or "plain")
@pytest.mark.parametrize("seqlens", [(64, 64), (33, 97), (97, 33), (1, 40)])
@pytest.mark.parametrize("heads", [(8, 8), (8, 1)])
def test_flash_attn_agrees(dtype, options, seqlens, heads):
    options = dict(options)
    s = slopes((heads[0],)).float().cuda() if options.pop("alibi", False) else None
    q, k, v = (t.cuda() for t in make(2, seqlens[0], seqlens[1], heads[0], heads[1], 64,
                                      dtype=dtype))
    choice = fa.backend(q, k, v, alibi_slopes=s, **options)
    assert choice.name == "flash-attn", choice.reason
    out = fa.attention(q, k, v, alibi_slopes=s, **options)
    ref = torch.tensor(reference_dense(lists(q.cpu()), lists(k.cpu()), lists(v.cpu()),
                                       alibi_slopes=None if s is None else lists(s.cpu()),
                                       **options), dtype=torch.float64)
    fa.force_backend("sdpa")
    fallback = fa.attention(q, k, v, alibi_slopes=s, **options)
    fa.force_backend(None)
    flash_error = (out.double().cpu() - ref).abs().max().item()
    fallback_error = (fallback.double().cpu() - ref).abs().max().item()
    floor = 2.0 ** -7 if dtype == torch.bfloat16 else 2.0 ** -10
    assert flash_error <= 2 * fallback_error + floor, (flash_error, fallback_error)


def test_varlen_agrees():
    lengths = [5, 1, 0, 17]
    total = sum(lengths)
    cu = torch.tensor([sum(lengths[:i]) for i in range(5)], dtype=torch.int32, device="cuda")
    q = torch.randn(total, 8, 64, dtype=torch.float16, device="cuda")
    k = torch.randn(total, 2, 64, dtype=torch.float16, device="cuda")
    v = torch.randn(total, 2, 64, dtype=torch.float16, device="cuda")
    out = fa.attention_varlen(q, k, v, cu, cu, 17, 17, causal=True)
    fa.force_backend("sdpa")
    fallback = fa.attention_varlen(q, k, v, cu, cu, 17, 17, causal=True)
    fa.force_backend(None)
    assert (out.float() - fallback.float()).abs().max().item() < 1e-2
