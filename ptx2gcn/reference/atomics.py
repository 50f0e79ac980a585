"""placeholder"""
HANDLERS: dict[str, object] = {}
