"""The cookieless user-content origin: the only process that ever serves evidence bytes.

It may import ``benchmax.models``, ``benchmax.db``, ``benchmax.adapters.storage`` and
``benchmax.settings`` (for ``CoreSettings``) and nothing else from BenchMax, so no sign-in
key, judge key or cookie secret can reach it even by accident.
"""
