"""The HTML step: what the server writes into each page before the browser runs a script.

It sits beside the API, not inside it, and draws from services and ``benchmax.presentation``
only: the live pages and this step share their words and colours through that module, so
neither imports the other.
"""
