"""The first paint of a card list — the feed and a contributor page — drawn by the server.

The cards are the ones the live list will show (``link_preview`` reads them with the feed's
own service) with the live card's words, at the places and fixed heights the page gives
them, so when the page has rendered its own list the swap moves nothing. The page's
structure is mirrored by blocks of the same height where a control will be (search box,
filter summary, count and order). Every value is HTML-escaped; search matches come from
``search.marked_html``, which escapes each piece before marking it.
"""

from __future__ import annotations

from datetime import datetime
from html import escape

from benchmax.presentation.colours import ACCENT, BADGE_TOKENS, review_color
from benchmax.presentation.formatting import attempts_text, score_text, setup_text
from benchmax.presentation.texts import FEED_INTRO, FEED_TITLE, HOW_IT_WORKS
from benchmax.services.dates import stamp
from benchmax.services.evidence_urls import evidence_url
from benchmax.services.feed import FeedCard
from benchmax.services.labels import DECLARED_LABEL
from benchmax.services.link_preview import Preview
from benchmax.services.search import marked_html
from benchmax.services.submissions import status_label

_EMPTY_LIST = '<div class="fp-bar fp-card"></div>'


def badge_css() -> str:
    """The status and score chips in the contrast-checked colours of the live badges."""
    rules = []
    for scheme, themes in BADGE_TOKENS.items():
        for theme, prefix in (("light", ""), ("dark", "html.dark ")):
            text, background = themes[theme]
            rules.append(
                f'{prefix}#bm-first-paint .fp-badge[data-color="{scheme}"]'
                f"{{color:{text};background:{background}}}"
            )
    return "\n".join(rules)


def _badge(text: str, scheme: str) -> str:
    return f'<span class="fp-badge" data-color="{escape(scheme)}">{escape(text)}</span>'


def _thumbnail(card: FeedCard, origin: str) -> str:
    if not card.thumbnail_evidence_id:
        return ""
    src = evidence_url(origin, card.thumbnail_evidence_id, card.thumbnail_safe_name or "image")
    return (
        f'<img class="fp-thumb" src="{escape(src)}" alt="" loading="lazy" '
        'referrerpolicy="no-referrer">'
    )


def card_html(card: FeedCard, origin: str, by: bool = True) -> str:
    """One card, as ``components.cards.feed_card`` words it (``by=False``: on the
    contributor's own page, without their name)."""
    review = str(card.review_state)
    chips = [_badge(status_label("public", review), review_color(review))]
    score = score_text(card.review_count, card.review_score)
    if score:
        chips.append(_badge(f"★ {score}", ACCENT))
    if card.is_sample:
        chips.append(_badge("Sample", "gray"))
    title = marked_html(card.title_marks) if card.title_marks else escape(card.title)
    excerpt = (
        f'<p class="fp-excerpt">{marked_html(card.excerpt_marks)}</p>' if card.excerpt_marks else ""
    )
    setup = setup_text(
        card.model_label, card.model_version_label, card.harness_label, card.reasoning_label
    )
    who = card.contributor_display_name or card.contributor_handle
    when = _time_ago(card.published_at)
    if by:
        when = (
            f'<span>by</span><a href="/u/{escape(card.contributor_handle)}">{escape(who)}</a>'
            f"<span>·</span>{when}"
        )
    return (
        f'<article class="fp-card">{_thumbnail(card, origin)}<div class="fp-card-body">'
        f'<div class="fp-badges">{"".join(chips)}</div>'
        f'<h2 class="fp-card-title"><a href="/tests/{escape(card.id)}">{title}</a></h2>'
        f'{excerpt}<p class="fp-line">{escape(setup)} · {escape(attempts_text(card.attempts))}</p>'
        f'<p class="fp-declared">{escape(DECLARED_LABEL)}</p>'
        f'<p class="fp-line fp-by">{when}</p></div></article>'
    )


def _time_ago(moment: datetime | None) -> str:
    """The live card's ``components/dates.time_ago``, drawn by the server."""
    when = stamp(moment)
    return (
        f'<time class="time-ago" datetime="{escape(when.iso)}" title="{escape(when.exact)}">'
        f"{escape(when.relative)}</time>"
    )


def cards_html(cards: list[FeedCard], origin: str, by: bool = True) -> str:
    """The list, or one card-sized block when it is empty (the live page says why)."""
    inner = "".join(card_html(card, origin, by) for card in cards) or _EMPTY_LIST
    return f'<div class="fp-cards">{inner}</div>'


def _how_it_works() -> str:
    """The newcomers' strip; the head script marks the page when it was dismissed."""
    steps = "".join(
        f'<p class="fp-step"><span class="fp-icon"></span><span><strong>{n}. {escape(name)}'
        f"</strong> — {escape(what)}</span></p>"
        for n, (_icon, name, what) in enumerate(HOW_IT_WORKS, 1)
    )
    return (
        '<section class="fp-how"><h2 class="fp-how-title">How a Test works</h2>'
        f'<div class="fp-steps">{steps}</div></section>'
    )


_FEED_CONTROLS = (
    '<div class="fp-controls"><div class="fp-bar fp-search"></div>'
    '<div class="fp-bar fp-summary"></div></div>'
)


def _list_view(heading: str, intro_html: str, below: str) -> str:
    return (
        f'<div class="fp-main fp-list"><h1 class="fp-page-title">{escape(heading)}</h1>'
        f'<p class="fp-intro">{intro_html}</p>{below}</div>'
    )


def feed_view(preview: Preview, origin: str) -> str:
    """The feed's heading and introduction, blocks where its controls will be, the cards."""
    cards = cards_html(preview.cards or [], origin)
    results = f'<div class="fp-controls"><div class="fp-bar fp-count"></div>{cards}</div>'
    return _list_view(FEED_TITLE, escape(FEED_INTRO), _how_it_works() + _FEED_CONTROLS + results)


def profile_view(preview: Preview, origin: str) -> str:
    """A contributor's name, the line under it as the live page words it (handle, number of
    Tests, when they joined) and their first page of public Tests."""
    cards = cards_html(preview.cards or [], origin, by=False)
    facts = [escape(preview.byline), escape(preview.count_text)]
    if preview.joined is not None:
        facts.append(f"joined {_time_ago(preview.joined)}")
    return _list_view(preview.heading, " · ".join(fact for fact in facts if fact), cards)
