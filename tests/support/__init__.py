"""Helpers the suites share: factories, fakes of outside services, fixtures and markers."""
