"""taor.host: what every front end needs and no terminal, under the command and the service.

- ``settings/``: the configuration, its schema (``schema``), the layers it comes from
  (``layers``: config files, ``TAOR_*`` variables, ``.env``, flags), what a project's own files
  may set (``confine``) and the trusted folders (``trust``), merged with the source of each
  value (``resolve``), for a folder's project (``project``); ``write`` adds rules to a file;
- ``sessions/``: the sessions on disk, where each project's are kept and how one is found
  (``paths``), and the catalogue of them (``catalogue``);
- ``compose/``: a ``Session`` made from settings: its model (``model``, ``DEFAULT_MODELS``),
  environment, config and transcript (``session``), and hooks from the config (``hooks``);
- ``outcome``: how a cycle ended, as a result object and an exit code.

Nothing here imports a front end (``taor.cli``); a test holds that. Importing this package
imports none of its modules.
"""

__all__: list[str] = []  # its modules are imported by name
