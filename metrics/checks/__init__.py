"""One vocabulary of checks: what a parameter or a document's field may be, declared once, worded one way.

- :mod:`metrics.checks.rules`: the rules of one value (:class:`Integer`, :class:`Number`, :class:`Options`,
  :class:`Text`, :class:`Pattern`, :class:`Boolean`, :class:`Kind`, :class:`OneOf`);
- :mod:`metrics.checks.words`: how a refusal is worded: a refused value shown short (:func:`shown`), a
  field's path (:func:`where`);
- :mod:`metrics.checks.parameters`: a public function's parameters declared with :func:`checked`, or
  checked one at a time with :func:`check`;
- :mod:`metrics.checks.documents`: the fields of a JSON or YAML document (:class:`Object`,
  :class:`ListOf`, :class:`MapOf`, :class:`Tree`), the one reader that checks a parsed document
  (:func:`read`) and strict JSON (:func:`load_json`: no key twice, no NaN, no number longer than a bound).

Every refusal, of a parameter or of a field anywhere in a document, is one
:class:`~metrics.errors.Refused` line: ``"<where>: expected <what>, found <value>"``.
"""

from __future__ import annotations

from metrics.checks.documents import LONGEST_NUMBER, Field, ListOf, MapOf, Object, Tree, load_json, read
from metrics.checks.parameters import COUNT, LEVEL, SEED, check, checked, refuse
from metrics.checks.rules import Boolean, Integer, Kind, Number, OneOf, Options, Pattern, Rule, Text
from metrics.checks.words import shown, where

__all__ = ["Boolean", "COUNT", "Field", "Integer", "Kind", "LEVEL", "LONGEST_NUMBER", "ListOf", "MapOf", "Number",
           "Object", "OneOf", "Options", "Pattern", "Rule", "SEED", "Text", "Tree", "check", "checked", "load_json",
           "read", "refuse", "shown", "where"]
