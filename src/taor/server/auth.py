"""Bearer-token authentication: every endpoint but ``/healthz`` needs
``Authorization: Bearer <token>``. A missing, malformed, wrong or revoked token is answered 401
with the same words (which of these it was is not told), and no token is ever logged."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from taor.server.store.tokens import User

_bearer = HTTPBearer(auto_error=False, description="A token from `taor serve token create`")


async def current_user(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    """The user of the request's bearer token; 401 for anything else."""
    token = credentials.credentials if credentials is not None else ""
    user: User | None = None
    if token:
        user = await request.app.state.service.tokens.authenticate(token)
    if user is None:
        raise HTTPException(
            status_code=401,
            detail="a valid bearer token is needed: Authorization: Bearer <token>",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return user


CurrentUser = Annotated[User, Depends(current_user)]
