"""gait's two ways of writing fix scripts are strategies behind one protocol, chosen by name."""

from __future__ import annotations

import pytest

from simreflect.suites.gait.interfaces import INTERFACES, BlenderInterface, PythonInterface, interface_for
from simreflect.suites.gait.suite import GaitSuite


def test_each_interface_name_picks_its_strategy_and_an_unknown_one_is_refused():
    assert INTERFACES == ("python", "blender")
    assert isinstance(GaitSuite().strategy, PythonInterface) and GaitSuite().interface == "python"
    assert isinstance(GaitSuite("blender").strategy, BlenderInterface)
    assert GaitSuite("blender").baseline_agent() is None and GaitSuite().baseline_agent() is not None
    for strategy in (interface_for(n) for n in INTERFACES):
        assert all(callable(getattr(strategy, m)) for m in ("check_available", "prepare_workspace", "run_fix_script",
                                                          "verify", "oracle", "baseline_agent"))
    with pytest.raises(ValueError, match="gait interface must be one of python, blender, not 'maya'"):
        GaitSuite("maya")


def test_l3_gives_the_cycle_hint_as_the_seed_states_it_and_the_improved_one_is_an_option():
    from simreflect.core.evidence import EvidenceLevel

    seed = GaitSuite().interface_notes(EvidenceLevel.L3)
    assert "restore values from the same phase one cycle earlier" in seed
    assert "one cycle later" not in seed
    improved = GaitSuite().with_options(hint="improved").interface_notes(EvidenceLevel.L3)
    assert "or one cycle later if the earlier cycle is itself broken" in improved
    assert "restore values from the same phase one cycle earlier" not in improved
    for level in (EvidenceLevel.L1, EvidenceLevel.L2):
        assert "Repair strategies" not in GaitSuite().with_options(hint="improved").interface_notes(level)
    with pytest.raises(ValueError, match="hint must be one of seed, improved"):
        GaitSuite().with_options(hint="louder")
