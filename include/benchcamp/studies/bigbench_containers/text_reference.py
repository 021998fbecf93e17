"""Pure-Python reference of the text queries' UDF logic (lab/bigbench-udf), for checking it.

The Hive functions of q10, q18, q19 and q27 find sentences, sentiment words and competitor names
in review text; this module does the same from the same word lists (``words/positive.txt``,
``negative.txt``, ``negations.txt``, ``competitors.txt``) so a test can compare the jar's rows
with ours on the same reviews. Rules (the jar's, written for this project):

* Tokens: OpenNLP's SimpleTokenizer, reproduced exactly (runs of letters, runs of digits, runs
  of one repeated other character; whitespace separates), lower-cased for matching.
* Sentiment: a token in the positive or negative list is a hit; a negation word (or the
  ``n ' t`` tokens of "isn't") up to `NEGATION_WINDOW` tokens before it, with no clause break
  between, flips its polarity. A sentence is POS, NEG or NEU by the sign of its hits' sum.
* Names: a name matches where its lower-cased tokens occur in a row among the sentence's.
* Sentences: the jar uses OpenNLP's pretrained English model; here a rule (split after ``.``,
  ``!`` or ``?`` followed by space and an upper-case letter, digit or quote). The two agree on
  the generator's reviews (the test checks it); they may differ on abbreviations in real text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final, NamedTuple

from benchcamp.studies.bigbench_containers.datagen.parameters import word_list

__all__ = [
    "NEGATION_WINDOW",
    "Lexicon",
    "NameMention",
    "SentenceSentiment",
    "SentimentHit",
    "SentimentWord",
    "competitor_mentions",
    "default_lexicon",
    "find_names",
    "mentions",
    "review_sentences",
    "sentiment_hits",
    "sentiment_words",
    "simple_tokenize",
    "split_sentences",
    "tokens",
]

NEGATION_WINDOW: Final = 3
POSITIVE: Final = "POS"
NEGATIVE: Final = "NEG"
NEUTRAL: Final = "NEU"
CLAUSE_BREAKS: Final = frozenset({",", ";", ":", ".", "!", "?", "but", "however"})
_SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")


@dataclass(frozen=True)
class Lexicon:
    """Lower-cased sentiment and negation words; a word in both sentiment lists is refused."""

    positive: frozenset[str]
    negative: frozenset[str]
    negations: frozenset[str]

    @classmethod
    def of(cls, positive: Iterable[str], negative: Iterable[str], negations: Iterable[str]) -> Lexicon:
        lexicon = cls(_lower(positive), _lower(negative), _lower(negations))
        both = lexicon.positive & lexicon.negative
        if both:
            raise ValueError(f"words in both the positive and the negative list: {sorted(both)}")
        return lexicon


class SentimentHit(NamedTuple):
    token_index: int
    word: str
    polarity: str
    negated: bool


class SentimentWord(NamedTuple):
    """One row of q10's function: a sentiment word of a sentence."""

    sentence_no: int
    sentence: str
    polarity: str
    word: str
    negated: bool


class SentenceSentiment(NamedTuple):
    """One row of q18's and q19's function: a sentence with its polarity and score."""

    sentence_no: int
    sentence: str
    polarity: str
    score: int


class NameMention(NamedTuple):
    """One row of q27's function: a name found in a sentence."""

    sentence_no: int
    sentence: str
    name: str


@cache
def default_lexicon() -> Lexicon:
    """The study's lists, the ones the jar packs."""
    return Lexicon.of(word_list("positive"), word_list("negative"), word_list("negations"))


def simple_tokenize(text: str) -> list[str]:
    """OpenNLP's SimpleTokenizer: a token ends where the character class changes (letter, digit,
    whitespace, other) and between two different 'other' characters."""
    found: list[str] = []
    start = 0
    state = "space"
    previous = ""
    for index, char in enumerate(text):
        kind = _char_class(char)
        if state == "space":
            if kind != "space":
                start = index
        elif kind != state or (kind == "other" and char != previous):
            found.append(text[start:index])
            start = index
        state, previous = kind, char
    if state != "space" and text:
        found.append(text[start:])
    return found


def tokens(text: str) -> list[str]:
    """Lower-cased SimpleTokenizer tokens, the form the lists are matched in."""
    return [token.lower() for token in simple_tokenize(text)]


def split_sentences(text: str) -> list[str]:
    """Sentences of a review by the rule in the module docstring, trimmed, empty ones left out."""
    return [part.strip() for part in _SENTENCE_END.split(text) if part.strip()]


def sentiment_hits(sentence_tokens: Sequence[str], lexicon: Lexicon | None = None) -> list[SentimentHit]:
    """The sentiment words of a sentence's tokens with their polarity after negation."""
    words = lexicon or default_lexicon()
    hits = []
    for index, token in enumerate(sentence_tokens):
        is_positive = token in words.positive
        if not is_positive and token not in words.negative:
            continue
        negated = _negated_at(sentence_tokens, index, words.negations)
        polarity = POSITIVE if is_positive != negated else NEGATIVE
        hits.append(SentimentHit(index, token, polarity, negated))
    return hits


def sentence_score(hits: Sequence[SentimentHit]) -> int:
    return sum(1 if hit.polarity == POSITIVE else -1 for hit in hits)


def sentence_polarity(hits: Sequence[SentimentHit]) -> str:
    score = sentence_score(hits)
    return POSITIVE if score > 0 else NEGATIVE if score < 0 else NEUTRAL


def sentiment_words(review: str, lexicon: Lexicon | None = None) -> list[SentimentWord]:
    """q10's rows for one review (bb_sentiment_words)."""
    return [
        SentimentWord(number, sentence, hit.polarity, hit.word, hit.negated)
        for number, sentence in enumerate(split_sentences(review), start=1)
        for hit in sentiment_hits(tokens(sentence), lexicon)
    ]


def review_sentences(review: str, lexicon: Lexicon | None = None) -> list[SentenceSentiment]:
    """q18's and q19's rows for one review (bb_sentences)."""
    rows = []
    for number, sentence in enumerate(split_sentences(review), start=1):
        hits = sentiment_hits(tokens(sentence), lexicon)
        rows.append(SentenceSentiment(number, sentence, sentence_polarity(hits), sentence_score(hits)))
    return rows


def find_names(sentence_tokens: Sequence[str], names: Sequence[str]) -> list[str]:
    """Each name whose tokens occur in a row in `sentence_tokens`, once, by first occurrence."""
    found = []
    for order, name in enumerate(name.strip() for name in names):
        needle = tokens(name)
        position = _index_of(sentence_tokens, needle) if needle else -1
        if position >= 0:
            found.append((position, order, name))
    return [name for _, _, name in sorted(found)]


def competitor_mentions(review: str, names: Sequence[str] | None = None) -> list[NameMention]:
    """q27's rows for one review (bb_name_mentions), by default with the study's competitors."""
    chosen = list(word_list("competitors")) if names is None else list(names)
    return [
        NameMention(number, sentence, name)
        for number, sentence in enumerate(split_sentences(review), start=1)
        for name in find_names(tokens(sentence), chosen)
    ]


def mentions(text: str, name: str) -> bool:
    """q18's join test (bb_mentions): `name` in `text` as whole tokens, any case."""
    needle = tokens(name.strip())
    return bool(needle) and _index_of(tokens(text), needle) >= 0


def _char_class(char: str) -> str:
    if char.isspace() or char == "\u00a0":
        return "space"
    if char.isalpha():
        return "letter"
    if char.isdecimal():
        return "digit"
    return "other"


def _negated_at(sentence_tokens: Sequence[str], index: int, negations: frozenset[str]) -> bool:
    for back in range(index - 1, max(0, index - NEGATION_WINDOW) - 1, -1):
        token = sentence_tokens[back]
        if token in CLAUSE_BREAKS:
            return False
        if token in negations or _is_contracted_not(sentence_tokens, back):
            return True
    return False


def _is_contracted_not(sentence_tokens: Sequence[str], index: int) -> bool:
    """The "t" of "isn't" (tokens "isn", "'", "t")."""
    return (
        sentence_tokens[index] == "t"
        and index >= 2
        and sentence_tokens[index - 1] in ("'", "\u2019")
        and sentence_tokens[index - 2].endswith("n")
    )


def _index_of(haystack: Sequence[str], needle: Sequence[str]) -> int:
    width = len(needle)
    for start in range(len(haystack) - width + 1):
        if list(haystack[start : start + width]) == list(needle):
            return start
    return -1


def _lower(words: Iterable[str]) -> frozenset[str]:
    return frozenset(word.lower() for word in words)
