"""What the reader sees, shared by every layer that draws it: the live pages (states,
components, pages) and the server's first paint.

Plain Python over services and the standard library: no Reflex and no layer that renders, so
any of them may import it and none has to import another to say the same thing.
"""
