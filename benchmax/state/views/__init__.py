"""What a state hands its page: frozen dataclasses of plain strings, numbers and booleans,
each built from a service's DTO by its ``of``, so a page reads fields, never keys, and no
state module is mostly view models."""
