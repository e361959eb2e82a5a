"""Helpers shared by the test modules: fixture data, recipe writers, small models and trainers.

A ``test_*.py`` module imports shared code from here (``from helpers.run_fixtures import ...``; pytest puts
``tests/`` on ``sys.path``), never from another test module (``tests/test_test_imports.py`` checks it).
Shared pytest fixtures are in ``tests/conftest.py``.
"""
