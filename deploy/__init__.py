"""Running SpecViz outside Community Cloud: nginx in front of replicas, a container recipe."""
