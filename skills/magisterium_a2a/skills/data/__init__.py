"""Built-in content written by the team, shipped as package data."""
