"""Messages that only thank or acknowledge ("thanks, that worked!", "好的收到"): nothing to plan.

In a Slack thread people answer a run with thanks; read as a request, "worked" or "好的" found some
tool's words and the bot asked which campaign to send. This is the language's small table of such
words, not any domain's: a message is a pleasantry only when nothing else is left once they, fillers
and punctuation are taken out ("ok, cancel sub_1" still asks for something).
"""

from __future__ import annotations

import re

_THANKS_EN = (r"thanks?(?: you)?(?: (?:so|very) much| a lot| a ton| again| heaps)?|thx|tysm|ty|cheers|much appreciated|"
              r"appreciate it|great|perfect|awesome|nice(?: one)?|cool|brilliant|excellent|amazing|sweet|lovely|"
              r"ok(?:ay)?|kk?|got it|understood|noted|all good|sounds good|will do|no worries|np|"
              r"(?:that|it)(?:'s| is)? (?:worked|works|working|fixed|done|sorted|fine|good|great|perfect)(?: now)?|"
              r"works(?: now)?|worked|all set|you(?:'re| are) (?:the best|a star|a lifesaver)|good (?:bot|job)|well done")
_FILLER_EN = r"(?:oh|ah|wow|yay|so|very|really|just|now|guys|team|bot|datasmith|mate|man)"
_THANKS_ZH = ("谢谢你|谢谢|多谢|感谢|感恩|辛苦了|辛苦|收到了|收到|好的|好滴|好嘞|好了|可以了|搞定了|没问题|明白了|明白|"
              "知道了|了解|太棒了|太好了|很棒|牛|厉害|完美|成功了|可以|行了|好")
_FILLER_ZH = "啊呀啦哈嗯哦噢喔呢吧的哒耶"
_PLEASANTRY_EN = re.compile(rf"\b(?:{_THANKS_EN})\b|\b{_FILLER_EN}\b", re.I)
_PLEASANTRY_ZH = re.compile(f"(?:{_THANKS_ZH})|[{_FILLER_ZH}]")
_ASKED = re.compile(r"[?？]|[吗吧嘛么]\s*$")
_LEFT_OVER = re.compile(r"[\w\u3400-\u9fff]")


def only_pleasantry(text: str) -> bool:
    """Whether the message only thanks or acknowledges: something was said, and nothing is left once
    the pleasantries, fillers, punctuation and emoji are taken out."""
    if not _LEFT_OVER.search(text) or _ASKED.search(text):
        return False  # (an emoji alone says no thanks either; "works?", "没问题吧？" ask whether it does)
    rest = _PLEASANTRY_ZH.sub(" ", _PLEASANTRY_EN.sub(" ", text))
    return not _LEFT_OVER.search(rest)


def pleasantry_reply(lang: str) -> str:
    return "Glad it helped. Ask me for something else any time." if lang == "en" else "不客气，有需要随时找我。"
