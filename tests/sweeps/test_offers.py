"""What the kernel offers the open sidebars: each observer hears every offer, in order, and a removed one no more."""

from __future__ import annotations

from mgenv_jupyter.sweeps._offers import CellOffer, ProfileOffer, cell_offers, profile_offers


def test_offers_reach_every_observer_until_it_leaves():
    heard: list = []
    for offers in (cell_offers, profile_offers):
        offers().observe(heard.append)
    try:
        cell_offers().remember(CellOffer("%%envsweep X=1,2\nrun()\n"))
        profile_offers().remember(ProfileOffer({"X": "2"}))
        assert cell_offers().observers() == 1 and profile_offers().observers() == 1
    finally:
        for offers in (cell_offers, profile_offers):
            offers().unobserve(heard.append)
    cell_offers().remember(CellOffer("later"))
    assert heard == [CellOffer("%%envsweep X=1,2\nrun()\n"), ProfileOffer({"X": "2"})]
    assert cell_offers().observers() == 0
