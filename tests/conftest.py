"""Settings every test shares: Hypothesis examples have no time limit (its default deadline of
200 ms per example fails tests on a loaded machine or under a tracer, such as coverage or a
mutation run, without anything being wrong). Tests that bound time do it through
:mod:`tests.timing`, scaled to the machine."""

from hypothesis import settings

settings.register_profile("metaeval", deadline=None)
settings.load_profile("metaeval")
