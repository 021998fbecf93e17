"""The text queries' logic: text_reference.py's rules and the generator's reviews read by them
(the UDF jar's rows against the same rules: tests/studies/bigbench_containers/test_bigbench_jars.py)."""

from __future__ import annotations

import pytest
from benchcamp.studies.bigbench_containers import text_reference as tr
from benchcamp.studies.bigbench_containers.datagen.parameters import word_list

SMALL = tr.Lexicon.of(["great", "Sturdy"], ["flimsy", "awful"], ["not", "never"])


def polarities(sentence: str) -> list[str]:
    return [hit.polarity for hit in tr.sentiment_hits(tr.tokens(sentence), SMALL)]


def test_tokens_follow_opennlp_simple_tokenizer_and_are_lower_cased() -> None:
    assert tr.tokens("It isn't GREAT, 5stars!!?") == [
        "it",
        "isn",
        "'",
        "t",
        "great",
        ",",
        "5",
        "stars",
        "!!",
        "?",
    ]
    assert tr.simple_tokenize("  a\u00a0b  ") == ["a", "b"]
    assert tr.simple_tokenize("") == []


def test_negation_within_three_tokens_flips_polarity() -> None:
    assert polarities("A sturdy case but a flimsy lid.") == ["POS", "NEG"]
    assert polarities("It is not very great.") == ["NEG"]
    assert polarities("Never once flimsy.") == ["POS"]
    assert polarities("It isn't great.") == ["NEG"]
    assert polarities("It won't be great.") == ["NEG"]


def test_negation_stops_at_a_clause_break_and_the_window() -> None:
    assert polarities("Not cheap, but great.") == ["POS"]
    assert polarities("Not that it was really great.") == ["POS"]
    hit = tr.sentiment_hits(tr.tokens("Not awful"), SMALL)[0]
    assert (hit.word, hit.polarity, hit.negated) == ("awful", "POS", True)


def test_sentence_polarity_is_the_sign_of_the_sum() -> None:
    def polarity(sentence: str) -> str:
        return tr.sentence_polarity(tr.sentiment_hits(tr.tokens(sentence), SMALL))

    assert polarity("Great and sturdy, a bit flimsy.") == "POS"
    assert polarity("Not great.") == "NEG"
    assert polarity("Great but flimsy.") == "NEU"
    assert polarity("It came in a box.") == "NEU"


def test_a_word_in_both_lists_is_refused() -> None:
    with pytest.raises(ValueError, match="fine"):
        tr.Lexicon.of(["fine"], ["Fine"], [])


def test_the_study_lists_are_disjoint_and_cover_the_generator_words() -> None:
    lexicon = tr.default_lexicon()
    assert {word.lower() for word in word_list("positive")} == lexicon.positive
    assert {word.lower() for word in word_list("negative")} == lexicon.negative
    assert {"not", "never", "no"} <= lexicon.negations
    assert not lexicon.positive & lexicon.negations and not lexicon.negative & lexicon.negations


def test_sentences_split_after_end_punctuation_before_a_capital() -> None:
    assert tr.split_sentences(" This is great.  I saw it at Alderway! Why? 2 left. ok then ") == [
        "This is great.",
        "I saw it at Alderway!",
        "Why?",
        "2 left. ok then",
    ]
    assert tr.split_sentences("   ") == []


def test_names_match_whole_tokens_in_order_of_first_occurrence() -> None:
    names = ["Ironleaf", "Granite Bay", "Alderway"]
    found = tr.find_names(tr.tokens("granite bay's price beats IRONLEAF and Ironleaf again"), names)
    assert found == ["Granite Bay", "Ironleaf"]
    assert tr.find_names(tr.tokens("Ironleafy granite and bay"), names) == []
    assert tr.mentions("I went back to the maple court store.", "Maple Court")
    assert not tr.mentions("Oakridgeway mall", "Oakridge")
    assert not tr.mentions("anything", "  ")


def test_review_rows_number_sentences_from_one() -> None:
    review = "It isn't great. I saw it at Harborview. Overall, flimsy kit."
    assert tr.sentiment_words(review) == [
        tr.SentimentWord(1, "It isn't great.", "NEG", "great", True),
        tr.SentimentWord(3, "Overall, flimsy kit.", "NEG", "flimsy", False),
    ]
    assert [row.polarity for row in tr.review_sentences(review)] == ["NEG", "NEU", "NEG"]
    assert tr.competitor_mentions(review) == [tr.NameMention(2, "I saw it at Harborview.", "Harborview")]


def test_generated_reviews_carry_the_sentiment_of_their_rating(
    generated_reviews: list[tuple[str, int, str]],
) -> None:
    """The generator opens a review rated 4-5 with a positive sentence and one rated 1-2 with a
    negative one, and writes whole sentences: the rules must read them that way."""
    assert len(generated_reviews) > 500
    for _, rating, text in generated_reviews:
        sentences = tr.review_sentences(text)
        assert 2 <= len(sentences) <= 5, text
        if rating >= 4:
            assert sentences[0].polarity == "POS", text
        elif rating <= 2:
            assert sentences[0].polarity == "NEG", text
    texts = " ".join(text for _, _, text in generated_reviews)
    assert {name for _, _, text in generated_reviews for name in _names(text)} == set(
        word_list("competitors")
    )
    assert any(tr.mentions(texts, store) for store in word_list("store_names"))


def _names(text: str) -> list[str]:
    return [mention.name for mention in tr.competitor_mentions(text)]
