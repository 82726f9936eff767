"""What every rules test file (tests/test_rules_*.py) asserts about its check() hooks, written once: a check must
never raise, whatever tensors the generic validator lets through (absent ones, other ranks, other data types)."""
import dmlops


def t(*sizes, dt="FLOAT32", strides=None):
    """Shorthand: ``t(2, 3)`` is a packed FLOAT32 [2, 3] tensor."""
    return dmlops.TensorDesc(dt, list(sizes), strides)


def replace_tensor(desc, name: str, value):
    """``desc`` with tensor field ``name`` set to ``value`` (None: absent); a tensor-array field gets ``()`` or
    ``(value, value)``."""
    field = dmlops.schema.snake_case(name)
    if isinstance(getattr(desc, field), tuple):
        value = () if value is None else (value, value)
    return desc.replace(**{field: value})


def assert_missing_tensors_never_raise(desc, bare_only_required: bool = True) -> None:
    """Dropping any one tensor gives no shape problem on it; dropping all gives (by default) only 'required' ones."""
    for name in desc.tensors():
        found = dmlops.problems(replace_tensor(desc, name, None), "6.4")
        assert all(p.rule != "shape" or p.field != name for p in found), name
    bare = desc
    for name in desc.tensors():
        bare = replace_tensor(bare, name, None)
    found = dmlops.problems(bare, "6.4")
    assert isinstance(found, list)
    if bare_only_required:
        assert all(p.rule == "required" for p in found), [str(p) for p in found]


def assert_wrong_ranks_never_raise(desc, rank: int, data_types=("FLOAT32",)) -> None:
    """Any tensor replaced by one of ``rank`` dimensions (and each of ``data_types``) gives problems, not exceptions."""
    for name in desc.tensors():
        for dt in data_types:
            changed = replace_tensor(desc, name, t(*[2] * rank, dt=dt))
            assert isinstance(dmlops.problems(changed, "6.4"), list)
            assert isinstance(dmlops.problems(changed, "1.0"), list)
