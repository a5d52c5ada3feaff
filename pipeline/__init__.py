"""The game pipeline: tracker events in, scored moves and questions for the players out.

:class:`Pipeline` (in :mod:`pipeline.game_pipeline`) composes its parts: reading the squares
that changed (:mod:`pipeline.reading`), letters settled by the word list
(:mod:`pipeline.inference`), new tiles of several moves split into them
(:mod:`pipeline.several_moves`) and the players' questions (:mod:`pipeline.questions`); what it
reports is in :mod:`pipeline.reports`.
"""

from pipeline.game_pipeline import Pipeline
from pipeline.questions import AnswerFile, AnswerFileError, RecordAnswers
from pipeline.reports import AnswerSource, Correction, MoveReport, Question

__all__ = [
    "AnswerFile", "AnswerFileError", "AnswerSource", "Correction", "MoveReport", "Pipeline",
    "Question", "RecordAnswers",
]
