"""Test and demonstration equipment: realistic rendered photos and filmed games of a board.

Nothing on the product's reading path imports this package (a contract in ``pyproject.toml``
says so); the demo, the tests, the benchmarks and ``tilecam learn-fonts`` (which photographs
printed typefaces to learn the stock letters from) use it.
"""
