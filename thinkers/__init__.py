"""Built-in thinkers, one module each; found by discovery."""
