"""The stored card excerpt (migration 0016): the database keeps it in step with the prompt and
the output on every write, on both engines, and cards are built from it alone."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import Engine, text
from sqlmodel import Session

from benchmax.migrations import alembic_config
from benchmax.search_index import CARD_HEAD_CHARS, split_card_excerpt
from benchmax.services.feed import FeedFilters, list_feed
from tests.support.factories import make_test

BOTH = pytest.mark.parametrize("database_url", ["sqlite", "postgres"], indirect=True)


def _stored(session: Session, test_id: str) -> tuple[str, str]:
    value = session.connection().execute(
        text("SELECT card_excerpt FROM test WHERE id = :id"), {"id": test_id}
    )
    return split_card_excerpt(value.scalar_one())


@BOTH
def test_excerpt_follows_inserts_and_updates(session: Session) -> None:
    prompt = "\n\nFirst line\x1fwith a separator\n" + "p" * 3000
    test = make_test(session, title="", prompt=prompt, output_text="o" * 5000)
    session.commit()
    assert _stored(session, test.id) == (
        prompt[:CARD_HEAD_CHARS].replace("\x1f", " "),
        "o" * CARD_HEAD_CHARS,
    )

    test.output_text = "a short output"
    session.add(test)
    session.commit()
    assert _stored(session, test.id)[1] == "a short output"

    test.prompt = "Now the prompt changed"
    session.add(test)
    session.commit()
    assert _stored(session, test.id) == ("Now the prompt changed", "a short output")

    test.title = "Renamed"  # neither text changes: the excerpt stays
    session.add(test)
    session.commit()
    assert _stored(session, test.id) == ("Now the prompt changed", "a short output")


@BOTH
def test_cards_come_from_the_excerpt(session: Session) -> None:
    untitled = make_test(session, title="", prompt="\n  \nDraw a heptagon\nthen more")
    deep = make_test(session, prompt="nothing here", output_text="x " * 200 + "heptagon at last")
    session.commit()

    cards = {card.id: card for card in list_feed(session, FeedFilters()).items}
    assert cards[untitled.id].title == "Draw a heptagon"

    found = {card.id: card for card in list_feed(session, FeedFilters(q="heptagon")).items}
    marked = [s.text for s in found[deep.id].excerpt_marks if s.hit]
    assert marked == ["heptagon"]
    assert [s.text for s in found[untitled.id].title_marks if s.hit] == ["heptagon"]


@BOTH
def test_migration_backfills_existing_tests(
    database_url: str, engine: Engine, session: Session
) -> None:
    test = make_test(session, prompt="Old prompt", output_text="Old output")
    session.commit()
    test_id = test.id
    session.close()
    config = alembic_config(database_url)
    command.downgrade(config, "0015")
    command.upgrade(config, "head")
    with Session(engine) as fresh:
        assert _stored(fresh, test_id) == ("Old prompt", "Old output")
