"""The sentence splitter: whole thoughts, exact offsets, and code, lists and headings kept apart."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from readingroom.text.sentences import CODE, FIGURE, HEADING, ITEM, PROSE, TABLE, split


def texts(text: str) -> list[str]:
    return [" ".join(s.text.split()) for s in split(text)]


def test_abbreviations_versions_and_dotted_names_do_not_end_a_sentence():
    text = ("Use a context manager, e.g. a with block, to close files. Mr. Smith wrote it, i.e. "
            "the module os.path.join in version 3.12.1 and later. It handles x.y names too. "
            "Dr. Jones agreed.")
    assert texts(text) == [
        "Use a context manager, e.g. a with block, to close files.",
        "Mr. Smith wrote it, i.e. the module os.path.join in version 3.12.1 and later.",
        "It handles x.y names too.",
        "Dr. Jones agreed.",
    ]


def test_etc_initials_questions_and_exclamations():
    assert texts("We read md, txt, etc. The rest is refused. Who wrote it? J. R. Smith did! Fine.") == [
        "We read md, txt, etc.", "The rest is refused.", "Who wrote it?", "J. R. Smith did!", "Fine."]


def test_hard_wrapped_lines_stay_one_sentence_and_footnotes_stay_with_theirs():
    text = ("If no handler matches, the search continues in the\nsurrounding code and on the\n"
            "invocation stack.  [1]\n\nNext paragraph here. Another one [2, 3]. Last.")
    assert texts(text) == [
        "If no handler matches, the search continues in the surrounding code and on the invocation stack. [1]",
        "Next paragraph here.", "Another one [2, 3].", "Last."]


def test_two_spaces_allow_a_lower_case_start_but_one_space_does_not():
    assert texts("It ends here.  x.__len__() is called next.") == ["It ends here.", "x.__len__() is called next."]
    assert texts("Call approx. five times. ok.") == ["Call approx. five times. ok."]


def test_fenced_and_indented_code_are_one_unit_each_and_marked_code():
    text = ("Define it like this:\n\n```python\ndef f(x=1):\n    return x.\n\nprint(f())\n```\n\n"
            "Or in an indented block:\n\n    >>> f(2)\n    2\n\nDone. Really.")
    units = split(text)
    assert [u.kind for u in units] == [PROSE, CODE, PROSE, CODE, PROSE, PROSE]
    assert units[1].text.startswith("```python") and units[1].text.endswith("```")
    assert "print(f())" in units[1].text  # the blank line inside the fence does not split it


def test_an_interactive_session_is_code_even_where_a_chunk_cut_its_indent():
    # A chunk that starts inside an indented example keeps no indent on its first line.
    text = (">>> print(sys.exception())\nNone\n>>> try:\n...     raise TypeError\n"
            "TypeError()\n\nThe except clause names the exceptions it handles.")
    units = split(text)
    assert [u.kind for u in units] == [CODE, PROSE]
    assert units[1].text == "The except clause names the exceptions it handles."


def test_indented_prose_under_a_signature_is_prose_not_code():
    text = ("str.count(sub[, start[, end]])\n\n   Return the number of non-overlapping occurrences of\n"
            "   substring *sub* in the range [*start*, *end*].  Optional arguments are\n"
            "   interpreted as in slice notation.\n")
    units = split(text)
    assert units[0].kind == HEADING and units[0].text == "str.count(sub[, start[, end]])"
    assert [u.kind for u in units[1:]] == [PROSE, PROSE]
    assert units[2].text.startswith("Optional arguments")


def test_indented_prose_that_quotes_names_is_prose():
    # Reference prose quotes the names it talks about; the quotes, brackets and underscores of
    # "__eq__()" are not code (the paragraph that answers "is my class still hashable?").
    text = ("object.__hash__(self)\n\n   If a class does not define an \"__eq__()\" method it should not\n"
            "   define a \"__hash__()\" operation either; if it defines \"__eq__()\" but not\n"
            "   \"__hash__()\", its instances will not be usable as items in hashable\n   collections.\n\n"
            "    x = {k: v for k, v in d.items()}  # a comment.\n")
    assert [u.kind for u in split(text)] == [HEADING, PROSE, CODE]


def test_grammar_blocks_are_code():
    text = "The statement:\n\n   try_stmt  ::= try1_stmt | try2_stmt\n   try1_stmt ::= \"try\" \":\" suite\n"
    assert [u.kind for u in split(text)] == [PROSE, CODE]


def test_headings_underlined_or_with_hashes_and_list_items():
    text = ("Title\n=====\n\n## Setup\n\nSteps to follow:\n\n- Install it. Then restart.\n"
            "- Open the page,\n  which takes a while.\n1. Numbered too.\n")
    units = split(text)
    assert [(u.kind, " ".join(u.text.split())) for u in units] == [
        (HEADING, "Title"), (HEADING, "## Setup"), (PROSE, "Steps to follow:"),
        (ITEM, "- Install it."), (ITEM, "Then restart."), (ITEM, "- Open the page, which takes a while."),
        (ITEM, "1. Numbered too.")]


def test_text_tables_are_not_sentences():
    text = "+------+-----+\n| name | age |\n+======+=====+\n| a.b  | 3.  |\n+------+-----+\n"
    assert [u.kind for u in split(text)] == [TABLE]


def test_a_command_typed_at_a_prompt_stays_with_the_words_that_lead_into_it():
    text = ("To get more information on any specific named function, for example solve, the command is\n"
            "> help(solve)\nAn alternative is\n> ?solve\nFor special characters, the argument must be quoted.")
    assert [(u.kind, " ".join(u.text.split())) for u in split(text)] == [
        (PROSE, "To get more information on any specific named function, for example solve, the command is "
                "> help(solve)"),
        (PROSE, "An alternative is > ?solve"),
        (PROSE, "For special characters, the argument must be quoted.")]
    # after a whole sentence, a command is code of its own; a quoted sentence is prose
    assert [u.kind for u in split("Start R.\n> x <- c(1, 2)\n> mean(x)\nThat is all.")] == [PROSE, CODE, PROSE]
    assert [u.kind for u in split("> Quoting a sentence here is prose, not a command.\nMore.")] == [PROSE, PROSE]
    assert [u.kind for u in split("> A quotation that wraps\n> over two lines.")] == [PROSE]
    assert [u.kind for u in split("You may see\nR> -2^2\n[1] -4\nand misread it.")][0] == PROSE
    # what the console printed back stays with its command, not at the start of the next sentence
    units = split("Write\nR> (-2)^2\n[1] 4\nto get the square of -2.\nSee the parse tree.\n"
                  "R> as.list(quote(-2^2))\n[[1]]\n‘-‘\n[[2]]\n2^2")
    assert [(u.kind, " ".join(u.text.split())) for u in units] == [
        (PROSE, "Write R> (-2)^2 [1] 4 to get the square of -2."), (PROSE, "See the parse tree."),
        (CODE, "R> as.list(quote(-2^2)) [[1]] ‘-‘ [[2]] 2^2")]
    # the sentence a command interrupts goes on after it when its next line opens in lower case
    assert texts("You may be seeing\nR> -2^2\n[1] -4\nand misreading the rules. Write it so.") == [
        "You may be seeing R> -2^2 [1] -4 and misreading the rules.", "Write it so."]
    assert texts("You are seeing something like\nR> -2^2\n[1] -4\nand misreading the rules in full. Write\n"
                 "R> (-2)^2\n[1] 4\nto get the square.") == [
        "You are seeing something like R> -2^2 [1] -4 and misreading the rules in full.",
        "Write R> (-2)^2 [1] 4 to get the square."]


def test_a_contents_page_is_a_listing_and_a_numbered_title_a_heading():
    contents = "Contents\n1 Introduction 1\n1.1 The R environment 2\n1.2 Related software 3\n1.3 Using R 5"
    assert [u.kind for u in split(contents)] == [TABLE]
    units = split("1.8 R commands, case sensitivity, etc.\n\nTechnically R is an expression language.")
    assert [(u.kind, u.text) for u in units] == [
        (HEADING, "1.8 R commands, case sensitivity, etc."), (PROSE, "Technically R is an expression language.")]
    # prose whose wrapped lines happen to end in numbers is not a contents page
    prose = "We measured 12 samples on day 3\nand the mean rose by 4\nas expected on day 5\nof the trial 7.\nAll was well."
    assert TABLE not in [u.kind for u in split(prose)]
    assert [u.kind for u in split("We measured 12 samples on day 3\nand the mean rose by 4\nas expected.")] == [PROSE]


def test_a_short_title_line_above_its_paragraph_is_a_heading():
    text = ("This does not work with the default separator.\n5. Missing values\n"
            "By default the file is assumed to contain NA.\nEmpty fields are missing too.")
    assert [(u.kind, u.text) for u in split(text)] == [
        (PROSE, "This does not work with the default separator."), (HEADING, "5. Missing values"),
        (PROSE, "By default the file is assumed to contain NA."), (PROSE, "Empty fields are missing too.")]
    # a wrapped line of prose that happens to be followed by a capital is not a title
    assert [u.kind for u in split("It reads the file and\nThen writes it back.")] == [PROSE]
    assert [u.kind for u in split("It was, in short, a mess,\nNot a plan.")] == [PROSE]


def test_a_spaced_ellipsis_does_not_end_a_sentence():
    text = "Columns of one type (numeric,\ncharacter, date, . . .) and rows of records. Next one."
    assert texts(text) == ["Columns of one type (numeric, character, date, . . .) and rows of records.", "Next one."]
    assert texts("Wait . . . Then it came.") == ["Wait . . .", "Then it came."]


def test_a_web_address_broken_across_lines_at_a_dot_does_not_end_the_sentence():
    text = "It is widely available. RODBC (https://CRAN.\nR-project.org/package=RODBC) is one. See https://a.org.\nThen more."
    assert texts(text) == ["It is widely available.", "RODBC (https://CRAN. R-project.org/package=RODBC) is one.",
                           "See https://a.org.", "Then more."]


def test_a_lower_case_remark_in_brackets_stays_with_its_sentence():
    assert texts("It is used by scan() for input. (see Section 7.2.) Conversely, x is cut.") == [
        "It is used by scan() for input. (see Section 7.2.)", "Conversely, x is cut."]
    assert texts("It quits. (This is also what q() does.) Fine.") == [
        "It quits.", "(This is also what q() does.)", "Fine."]


def test_a_command_inside_a_list_item_stays_in_the_sentence_it_is_part_of():
    # R-intro.pdf: the list item's last words lead into a command and the sentence goes on after it;
    # quoting "gives y all but the first five elements of x." alone would say nothing.
    text = ("3. A vector of negative integral quantities. Such an index vector specifies the values to\n"
            "be excluded rather than included. Thus\n> y <- x[-(1:5)]\ngives y all but the first five elements of x.\n")
    units = split(text)
    assert [u.kind for u in units] == [ITEM, ITEM, ITEM]
    assert " ".join(units[-1].text.split()) == "Thus > y <- x[-(1:5)] gives y all but the first five elements of x."
    assert all(text[u.start:u.end] == u.text for u in units)
    # A finished item before a command does not swallow it.
    done = split("1. Remove them all.\n> rm(list = ls())\n")
    assert [u.kind for u in done] == [ITEM, CODE]


def test_other_scripts():
    assert texts("Это первое предложение. А это второе!") == ["Это первое предложение.", "А это второе!"]
    assert texts("関数を定義します。引数も使えます。") == ["関数を定義します。", "引数も使えます。"]


def test_the_bundled_reference_splits_with_exact_offsets_and_no_unit_crosses_a_blank_line():
    from pydoc_data.topics import topics

    for name, text in topics.items():
        units = split(text)
        assert units, name
        last = 0
        for u in units:
            assert text[u.start:u.end] == u.text and u.text == u.text.strip()
            assert u.start >= last  # in order, never overlapping
            last = u.end
            if u.kind != CODE:
                assert "\n\n" not in u.text.replace("\r", "")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?\n\t`#-*|:[]1e.g")), max_size=200))
def test_any_text_gives_exact_ordered_offsets(text):
    last = 0
    for u in split(text):
        assert text[u.start:u.end] == u.text and u.text.strip() == u.text and u.text
        assert u.start >= last
        last = u.end


def test_a_programs_sentences_are_its_comments_and_docstrings():
    from readingroom.text.program_text import split_any

    c = ("/* A block comment that explains\n * the purpose of this file. It has two sentences.\n */\n"
         "#include <stdio.h>\nint x = 1;\n// Compute the answer to everything.\n// Then return it to the caller.\n"
         "int f() { return 42; }\n")
    units = split_any(c, "c")
    assert [u.text for u in units] == ["A block comment that explains\n * the purpose of this file.",
                                       "It has two sentences.", "Compute the answer to everything.",
                                       "Then return it to the caller."]
    py = ('def f(x):\n    """Return x doubled.\n\n    Twice the input, as a float.\n    """\n'
          "    # Multiply by two here.\n    return 2.0 * x  # not a sentence\n")
    units = split_any(py, "py")
    assert [u.text for u in units] == ["Return x doubled.", "Twice the input, as a float.", "Multiply by two here."]
    raw = 'def g():\n    r"""Match the pattern against the text."""\n    return re.match(p, t)\n'
    assert [u.text for u in split_any(raw, "py")] == ["Match the pattern against the text."]
    for text, kind in ((c, "c"), (py, "py")):
        assert all(text[u.start:u.end] == u.text for u in split_any(text, kind))
    assert split_any('{"a": "One sentence here. And another one."}', "json") == []  # data, no comments
    assert [u.text for u in split_any("Plain prose. Two sentences.", "txt")] == ["Plain prose.", "Two sentences."]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["# A comment line here.", "// Another one. Two.", "/* open", " * inside it.",
                                 " */", '"""Doc start.', 'end."""', "x = f(y)  # trail", "", "\r", "code();",
                                 "'''", "#", "//"]), max_size=30),
       st.sampled_from(["py", "c", "js", "yaml", "json", "toml"]))
def test_program_units_are_exact_slices_that_start_at_words(lines, doc_type):
    from readingroom.text.program_text import split_any

    text = "\n".join(lines)
    for u in split_any(text, doc_type):
        assert u.text and text[u.start:u.end] == u.text
        assert u.text[0] not in "#/*" and not u.text[0].isspace()


def test_figure_labels_read_with_a_page_are_not_a_sentence_but_prose_quoting_code_is():
    from readingroom.text.line_kinds import not_a_sentence

    assert not_a_sentence("y x 1 ex")  # an axis's labels, as a PDF's text layer gives them
    assert not_a_sentence("0 1 2 3 4 5 x")
    assert not not_a_sentence("It is a set.")
    assert not not_a_sentence("Thus > y <- x[-(1:5)] gives y all but the first five elements of x.")


def test_a_listing_set_without_indentation_is_code_not_the_end_of_a_sentence():
    # PDFs drop a listing's indentation; a lower-case line after a full stop does not start a
    # sentence, so Asymptote's example was read into the sentence introducing it.
    text = ("Here is an example of reading column data in from a file, using the stats module.\n"
            "size(400,200,IgnoreAspect);\nimport graph;\nfile fin=input(\"leastsquares.dat\").line();\n"
            "real[][] a=fin;\nThe fit is drawn in red.")
    units = split(text)
    assert [(u.kind, u.text.split("\n")[0]) for u in units] == [
        (PROSE, "Here is an example of reading column data in from a file, using the stats module."),
        (CODE, "size(400,200,IgnoreAspect);"), (PROSE, "The fit is drawn in red.")]
    hard_wrapped = "The first value is kept;\nthe others are dropped. Nothing else changes."
    assert texts(hard_wrapped) == ["The first value is kept; the others are dropped.", "Nothing else changes."]


def test_a_figures_labels_before_a_sentence_are_a_unit_of_their_own():
    # A PDF's text layer reads a figure's tick labels along with the page (Asymptote's manual);
    # with no full stop among them they were read into the next sentence ("10−1 100 101 y ...
    # x One can also specify custom tick locations ...").
    text = ("10−1\n100\n101\ny\n10−1 100 101\nx\nOne can also specify custom tick locations and formats for\n"
            "logarithmic axes.\n\nHere is a venn diagram, drawn to width 4cm:\nA B\nA ∩ B\nA ∪ B\n"
            "Each graph is drawn in its own environment.")
    units = split(text)
    assert [(u.kind, " ".join(u.text.split())) for u in units] == [
        (FIGURE, "10−1 100 101 y 10−1 100 101 x"),
        (PROSE, "One can also specify custom tick locations and formats for logarithmic axes."),
        (PROSE, "Here is a venn diagram, drawn to width 4cm:"), (FIGURE, "A B A ∩ B A ∪ B"),
        (PROSE, "Each graph is drawn in its own environment.")]
    # a word of one letter ending a wrapped line, a lone bullet, a number that ends a sentence
    for prose in ("You can give it a\nname of your own.", "The answer is\n42.\nThen it stops.",
                  "•\nGuide graph draws a curve."):
        assert FIGURE not in [u.kind for u in split(prose)], prose


def test_an_r_listing_set_without_indentation_is_code_with_all_its_statements():
    # R-intro's bank account example, as the PDF's text layer gives it: the listing's calls and
    # assignments were read as sentences and quoted ("list( deposit = function(amount) { ...
    # cat(amount, "deposited.").
    text = ("Here is how the account is made.\nlist(\ndeposit = function(amount) {\nif(amount <= 0)\n"
            "stop(\"Deposits must be positive!\")\ntotal <<- total + amount\ncat(amount, \"deposited.\")\n"
            "}\n)\nEach call changes the balance.")
    units = split(text)
    assert [(u.kind, u.text.split("\n")[0]) for u in units] == [
        (PROSE, "Here is how the account is made."), (CODE, "list("), (PROSE, "Each call changes the balance.")]
    assert units[1].text.endswith("}\n)") and "stop(" in units[1].text
    # the words leading into a command keep it, and a sentence quoting code stays prose
    assert texts("It is kept.\nThus\nx <- 1:10\ngives x the numbers one to ten.") == [
        "It is kept.", "Thus x <- 1:10 gives x the numbers one to ten."]
    assert [u.kind for u in split("The result of rbind() or cbind() always has matrix status.\n"
                                  "It is kept.")] == [PROSE, PROSE]


def test_a_comment_line_of_a_listing_in_a_pdf_is_code():
    # Asymptote's manual: "// Assignment: Assign the real variable x the value 1." was quoted as
    # a sentence of the example it comments.
    units = split("Here is a short example.\n// Assignment: Assign the real variable x the value 1.\n"
                  "real x=1.0;\nThe loop runs once.")
    assert [u.kind for u in units] == [PROSE, CODE, PROSE]
