"""The AI judge port and its one implementation, an OpenAI-compatible chat-completions client.

Services depend on ``JudgePort`` only; ``build_judge`` returns the configured client, or None
when no judge endpoint is configured (the default), so nothing judge-related runs at all.
"""

from benchmax.adapters.judge.client import (
    JudgeAnswer,
    JudgeCall,
    JudgeClientError,
    JudgePort,
    JudgeReply,
    OpenAICompatibleJudge,
    build_judge,
)

__all__ = [
    "JudgeAnswer",
    "JudgeCall",
    "JudgeClientError",
    "JudgePort",
    "JudgeReply",
    "OpenAICompatibleJudge",
    "build_judge",
]
