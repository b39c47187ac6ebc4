"""The sample's Python side."""


def greet(name: str) -> str:
    """Greet someone by name."""
    return f"hi {name}"


def greet_all(names: list[str]) -> list[str]:
    return [greet(n) for n in names]
