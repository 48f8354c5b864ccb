"""What the agent can do: the skill plug-in API, the registry and the built-in skills."""
