"""Calibration pairs for the citation check (citations.SUPPORT_THRESHOLD), written by hand
over the bundled Python reference (pydoc_data.topics).

SUPPORTED: (topic, a phrase locating the source sentence, a paraphrase of that sentence).
UNSUPPORTED: (topic, a phrase locating where in the topic, a plausible claim on the same
subject that the passage does not make). The passage a claim cites is the topic's text
around the located phrase (``passage``), about the size of a packed span.
"""

from __future__ import annotations

import re

SUPPORTED = [
    ("try", "the saved exception is discarded",
     "If the finally clause runs a return, break or continue statement, the saved exception is thrown away."),
    ("try", "it is cleared\nat the end",
     "An exception bound with 'as' in an except clause is cleared when that clause ends."),
    ("with", "will always be called",
     "As long as __enter__() returns without an error, the with statement makes sure __exit__() gets called."),
    ("while", "terminates the loop without executing",
     "A break inside the loop body ends the loop and skips the else clause."),
    ("pass", "null operation",
     "The pass statement does nothing when it runs; it is a null operation."),
    ("pass", "placeholder",
     "pass is handy as a placeholder where a statement is needed but no code has to run."),
    ("global", "interpreted as globals",
     "The global statement makes the listed identifiers be interpreted as global names."),
    ("assert", "emits no code for an assert",
     "When optimization is requested at compile time, no code is generated for assert statements."),
    ("del", "NameError",
     "Deleting a name that is not bound raises a NameError exception."),
    ("yield", "sufficient to cause that definition",
     "Putting yield in a function definition is enough to turn it into a generator function."),
    ("if", "If all expressions are false",
     "When every expression is false, the suite of the else clause runs, if there is one."),
    ("raise", "re-raises the exception that is currently being handled",
     "A bare raise with no expression re-raises the exception that is being handled right now."),
    ("import", "must appear near the top of the module",
     "A future statement has to be placed near the top of the module."),
    ("function", "Default parameter values are evaluated from left to right",
     "Default parameter values are evaluated from left to right, once, when the def statement runs."),
    ("for", "assigned to the target list",
     "Each item the iterator provides is assigned to the target list, and then the suite is executed."),
    ("class", "Descriptors can be used",
     "Descriptors let you create instance variables with different implementation details."),
    ("return", "leaves the current function call",
     "return exits the current function call, giving the expression list or None as the return value."),
    ("lambda", "anonymous functions",
     "Lambda expressions are used to create anonymous functions."),
]

UNSUPPORTED = [
    ("try", "the saved exception is discarded",
     "The finally clause is skipped whenever the try block raises an exception."),
    ("with", "will always be called",
     "The with statement opens files in binary mode unless told otherwise."),
    ("while", "terminates the loop without executing",
     "A while loop stops by itself after one thousand iterations."),
    ("pass", "null operation",
     "The pass statement prints an empty line to standard output."),
    ("global", "interpreted as globals",
     "The global statement copies a variable into every module of the program."),
    ("assert", "emits no code for an assert",
     "Assertions are only checked when the program runs under a debugger."),
    ("del", "NameError",
     "del frees an object's memory at once and returns the number of bytes freed."),
    ("yield", "sufficient to cause that definition",
     "A generator can produce at most ten values before it has to return."),
    ("if", "If all expressions are false",
     "An if statement may have no more than three elif clauses."),
    ("raise", "re-raises the exception that is currently being handled",
     "Only exceptions from the standard library can be raised."),
    ("function", "Default parameter values are evaluated from left to right",
     "Functions with default arguments cannot be called with keyword arguments."),
    ("for", "assigned to the target list",
     "A for loop sorts the items of a sequence before it iterates over them."),
    ("class", "Descriptors can be used",
     "A class can inherit from one base class only."),
    ("return", "leaves the current function call",
     "The return statement converts the value it returns into a string."),
    ("lambda", "anonymous functions",
     "A lambda expression may hold several statements separated by semicolons."),
    ("import", "must appear near the top of the module",
     "Importing a module twice runs its code twice and doubles its memory use."),
]

WINDOW = 700  # characters either side of the located phrase: about one packed span


def passage(topic: str, where: str) -> str:
    from pydoc_data.topics import topics

    text = topics[topic]
    at = re.search(r"\s+".join(map(re.escape, where.split())), text).start()  # across line wraps
    return text[max(0, at - WINDOW): at + WINDOW]
