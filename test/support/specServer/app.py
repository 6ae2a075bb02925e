"""A small server of the Orchestration REST API, written from docs/spec/ alone (never from Prefect's document
or its names): flows, flow runs, task runs, deployments, artifacts and variables, kept in memory.

It stands in our tests for the compatible servers users build, and differs from Prefect where the spec leaves
room: no trailing slashes, its own default and maximum for `limit`, unknown properties refused, conflicts
answered 409, a create-or-replace PUT for variables, no `/admin` routes, its own schema names, the API under
`/api/v1` (spec section 9), and FastAPI's own document (OpenAPI 3.1).

    python app.py --port N [--api-key KEY]     serves until terminated
"""


import argparse
import re
import uuid
from datetime import datetime, timedelta, timezone
from enum import Enum
from typing import Annotated, Any, Optional

import uvicorn
from fastapi.exceptions import RequestValidationError
from fastapi import APIRouter, Body, Depends, FastAPI, Header, HTTPException, Path, Query, Request, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

API_VERSION = "1.4.0"
DEFAULT_LIMIT = 25
MAX_LIMIT = 100
VERSION = re.compile(r"^\d+\.\d+\.\d+$")


def now() -> datetime:
    return datetime.now(timezone.utc)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# ---- the resources ----------------------------------------------------------------------------------------------


class StateKind(str, Enum):
    SCHEDULED = "SCHEDULED"
    PENDING = "PENDING"
    RUNNING = "RUNNING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    CANCELLED = "CANCELLED"


class RunStateIn(Strict):
    type: StateKind
    name: Optional[str] = Field(default=None, max_length=80)
    message: Optional[str] = Field(default=None, max_length=2000)


class RunState(BaseModel):
    type: StateKind
    name: str
    message: Optional[str] = None
    timestamp: datetime


Tags = Annotated[list[Annotated[str, Field(min_length=1, max_length=64)]], Field(max_length=20)]
Name = Annotated[str, Field(min_length=1, max_length=120)]
Slug = Annotated[str, Field(min_length=1, max_length=80, pattern=r"^[a-z0-9][a-z0-9-]*$")]
VariableName = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[a-z0-9_]+$")]


class Stamped(BaseModel):
    id: uuid.UUID
    created: datetime
    updated: datetime


class Flow(Stamped):
    name: str
    tags: list[str]


class NewFlow(Strict):
    name: Name
    tags: Tags = []


class FlowChange(Strict):
    # Absent leaves a field as it is; null is refused where the member cannot hold null.
    tags: Tags = None


class FlowRun(Stamped):
    name: str
    flow_id: uuid.UUID
    deployment_id: Optional[uuid.UUID]
    tags: list[str]
    parameters: dict[str, Any]
    expected_start_time: Optional[datetime]
    state: RunState


class NewFlowRun(Strict):
    flow_id: uuid.UUID
    name: Optional[Name] = None
    tags: Tags = []
    parameters: dict[str, Any] = {}
    expected_start_time: Optional[AwareDatetime] = None
    state: Optional[RunStateIn] = None


class FlowRunChange(Strict):
    name: Name = None
    tags: Tags = None


class TaskRun(Stamped):
    name: str
    task_key: str
    flow_run_id: Optional[uuid.UUID]
    tags: list[str]
    state: RunState


class NewTaskRun(Strict):
    name: Name
    task_key: Annotated[str, Field(min_length=1, max_length=200)]
    flow_run_id: Optional[uuid.UUID] = None
    tags: Tags = []
    state: Optional[RunStateIn] = None


class TaskRunChange(Strict):
    name: Name = None
    tags: Tags = None


class Deployment(Stamped):
    name: str
    flow_id: uuid.UUID
    description: Optional[str]
    tags: list[str]
    paused: bool


class NewDeployment(Strict):
    name: Slug
    flow_id: uuid.UUID
    description: Optional[Annotated[str, Field(max_length=500)]] = None
    tags: Tags = []
    paused: bool = False


class DeploymentChange(Strict):
    description: Optional[Annotated[str, Field(max_length=500)]] = None
    tags: Tags = None
    paused: bool = None


class RunFromDeployment(Strict):
    name: Optional[Name] = None
    tags: Optional[Tags] = None
    parameters: dict[str, Any] = {}
    state: Optional[RunStateIn] = None


class Artifact(Stamped):
    key: Optional[str]
    type: Optional[str]
    description: Optional[str]
    data: Any
    flow_run_id: Optional[uuid.UUID]


class NewArtifact(Strict):
    key: Optional[Slug] = None
    type: Optional[Annotated[str, Field(max_length=40)]] = None
    description: Optional[Annotated[str, Field(max_length=500)]] = None
    data: Any = None
    flow_run_id: Optional[uuid.UUID] = None


class ArtifactChange(Strict):
    description: Optional[Annotated[str, Field(max_length=500)]] = None
    data: Any = None


class Variable(Stamped):
    name: str
    value: Any
    tags: list[str]


class VariableValue(Strict):
    value: Any
    tags: Tags = []


# ---- the filter bodies (spec section 4.3) -------------------------------------------------------------------------


class IdIn(Strict):
    any_: Optional[list[uuid.UUID]] = None


class NullableIdIn(Strict):
    any_: Optional[list[uuid.UUID]] = None
    is_null_: Optional[bool] = None


class TextIs(Strict):
    any_: Optional[list[str]] = None
    eq_: Optional[str] = None


class TagsHave(Strict):
    all_: Optional[list[str]] = None
    any_: Optional[list[str]] = None
    is_null_: Optional[bool] = None


class InstantWithin(Strict):
    before_: Optional[AwareDatetime] = None
    after_: Optional[AwareDatetime] = None


class NullableInstantWithin(InstantWithin):
    is_null_: Optional[bool] = None


class KindIn(Strict):
    any_: Optional[list[StateKind]] = None


class StateCriteria(Strict):
    type: Optional[KindIn] = None


class KeyIs(Strict):
    any_: Optional[list[str]] = None
    exists_: Optional[bool] = None


class BooleanIs(Strict):
    eq_: Optional[bool] = None


class FlowCriteria(Strict):
    id: Optional[IdIn] = None
    name: Optional[TextIs] = None
    tags: Optional[TagsHave] = None
    created: Optional[InstantWithin] = None


class FlowRunCriteria(Strict):
    id: Optional[IdIn] = None
    name: Optional[TextIs] = None
    tags: Optional[TagsHave] = None
    flow_id: Optional[IdIn] = None
    deployment_id: Optional[NullableIdIn] = None
    state: Optional[StateCriteria] = None
    expected_start_time: Optional[NullableInstantWithin] = None
    created: Optional[InstantWithin] = None


class TaskRunCriteria(Strict):
    id: Optional[IdIn] = None
    name: Optional[TextIs] = None
    tags: Optional[TagsHave] = None
    flow_run_id: Optional[NullableIdIn] = None
    state: Optional[StateCriteria] = None
    created: Optional[InstantWithin] = None


class DeploymentCriteria(Strict):
    id: Optional[IdIn] = None
    name: Optional[TextIs] = None
    tags: Optional[TagsHave] = None
    paused: Optional[BooleanIs] = None
    created: Optional[InstantWithin] = None


class ArtifactCriteria(Strict):
    id: Optional[IdIn] = None
    key: Optional[KeyIs] = None
    flow_run_id: Optional[NullableIdIn] = None
    created: Optional[InstantWithin] = None


class VariableCriteria(Strict):
    name: Optional[TextIs] = None
    tags: Optional[TagsHave] = None


class FlowOrder(str, Enum):
    NAME_ASC = "NAME_ASC"
    NAME_DESC = "NAME_DESC"
    CREATED_DESC = "CREATED_DESC"


class RunOrder(str, Enum):
    CREATED_ASC = "CREATED_ASC"
    CREATED_DESC = "CREATED_DESC"
    NAME_ASC = "NAME_ASC"
    NAME_DESC = "NAME_DESC"


class DeploymentOrder(str, Enum):
    NAME_ASC = "NAME_ASC"
    NAME_DESC = "NAME_DESC"
    CREATED_DESC = "CREATED_DESC"


class ArtifactOrder(str, Enum):
    CREATED_DESC = "CREATED_DESC"
    CREATED_ASC = "CREATED_ASC"


class VariableOrder(str, Enum):
    NAME_ASC = "NAME_ASC"
    NAME_DESC = "NAME_DESC"


Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT)]
Offset = Annotated[int, Field(ge=0)]


class Page(Strict):
    limit: Limit = DEFAULT_LIMIT
    offset: Offset = 0


class FlowQuery(Page):
    flows: Optional[FlowCriteria] = None
    flow_runs: Optional[FlowRunCriteria] = None
    deployments: Optional[DeploymentCriteria] = None
    sort: FlowOrder = FlowOrder.NAME_ASC


class FlowRunQuery(Page):
    flows: Optional[FlowCriteria] = None
    flow_runs: Optional[FlowRunCriteria] = None
    deployments: Optional[DeploymentCriteria] = None
    sort: RunOrder = RunOrder.CREATED_DESC


class TaskRunQuery(Page):
    flow_runs: Optional[FlowRunCriteria] = None
    task_runs: Optional[TaskRunCriteria] = None
    sort: RunOrder = RunOrder.CREATED_DESC


class DeploymentQuery(Page):
    flows: Optional[FlowCriteria] = None
    deployments: Optional[DeploymentCriteria] = None
    sort: DeploymentOrder = DeploymentOrder.NAME_ASC


class ArtifactQuery(Page):
    artifacts: Optional[ArtifactCriteria] = None
    flow_runs: Optional[FlowRunCriteria] = None
    sort: ArtifactOrder = ArtifactOrder.CREATED_DESC


class VariableQuery(Page):
    variables: Optional[VariableCriteria] = None
    sort: VariableOrder = VariableOrder.NAME_ASC


class FlowCountQuery(Strict):
    flows: Optional[FlowCriteria] = None
    flow_runs: Optional[FlowRunCriteria] = None
    deployments: Optional[DeploymentCriteria] = None


class FlowRunCountQuery(FlowCountQuery):
    pass


class TaskRunCountQuery(Strict):
    flow_runs: Optional[FlowRunCriteria] = None
    task_runs: Optional[TaskRunCriteria] = None


class DeploymentCountQuery(Strict):
    flows: Optional[FlowCriteria] = None
    deployments: Optional[DeploymentCriteria] = None


class ArtifactCountQuery(Strict):
    artifacts: Optional[ArtifactCriteria] = None
    flow_runs: Optional[FlowRunCriteria] = None


class VariableCountQuery(Strict):
    variables: Optional[VariableCriteria] = None


class HistoryQuery(FlowRunCountQuery):
    history_start: AwareDatetime
    history_end: AwareDatetime
    history_interval_seconds: Annotated[float, Field(gt=0, le=366 * 24 * 3600)]


class KindCount(BaseModel):
    type: StateKind
    count: int


class HistoryBin(BaseModel):
    interval_start: datetime
    interval_end: datetime
    states: list[KindCount]


class StateChange(Strict):
    state: RunStateIn
    force: bool = False


class StateChangeResult(BaseModel):
    status: str
    state: RunState


class Problem(BaseModel):
    detail: str


# ---- the store and the semantics of criteria ------------------------------------------------------------------------

STORE: dict[str, dict[uuid.UUID, dict[str, Any]]] = {
    k: {} for k in ("flows", "flow_runs", "task_runs", "deployments", "artifacts")
}
VARIABLES: dict[str, dict[str, Any]] = {}
# How a member of the queried collection (first) relates to one of another (second): the field of the other's
# member that must equal the field of the queried one, so that a criterion on a related collection can be read.
LINKS = {
    ("flows", "flow_runs"): ("flow_id", "id"),
    ("flows", "deployments"): ("flow_id", "id"),
    ("flow_runs", "flows"): ("id", "flow_id"),
    ("flow_runs", "deployments"): ("id", "deployment_id"),
    ("task_runs", "flow_runs"): ("id", "flow_run_id"),
    ("deployments", "flows"): ("id", "flow_id"),
    ("artifacts", "flow_runs"): ("id", "flow_run_id"),
}


def field_matches(value: Any, operator: str, operand: Any) -> bool:
    if operator == "any_":
        if isinstance(value, list):
            return any(v in [str(o) for o in operand] for v in value)
        return value is not None and str(value) in [str(o.value if isinstance(o, Enum) else o) for o in operand]
    if operator == "all_":
        return isinstance(value, list) and all(o in value for o in operand)
    if operator == "eq_":
        return value == (operand if isinstance(operand, bool) else str(operand)) if value is not None else False
    if operator == "is_null_":
        empty = value is None or value == []
        return empty if operand else not empty
    if operator == "exists_":
        return (value is not None) == operand
    if operator == "before_":
        return value is not None and value <= operand
    if operator == "after_":
        return value is not None and value >= operand
    raise ValueError(operator)


def criteria_match(obj: dict[str, Any], criteria: BaseModel) -> bool:
    for field, node in criteria:
        if node is None:
            continue
        value = obj.get(field)
        if field == "state":
            if node.type is not None and node.type.any_ is not None:
                if not field_matches(obj["state"]["type"].value, "any_", node.type.any_):
                    return False
            continue
        if isinstance(value, uuid.UUID):
            value = str(value)
        for operator, operand in node:
            if operand is not None and not field_matches(value, operator, operand):
                return False
    return True


def select(collection: str, query: BaseModel | dict[str, Any]) -> list[dict[str, Any]]:
    """The members of `collection` that meet every criterion of the query, of its own and of related collections."""
    criteria = dict(query)
    own = criteria.get(collection)
    chosen = [o for o in STORE[collection].values() if own is None or criteria_match(o, own)]
    for (queried, other), (theirs, mine) in LINKS.items():
        if queried != collection or criteria.get(other) is None:
            continue
        keys = {r[theirs] for r in select(other, {other: criteria[other]}) if r.get(theirs) is not None}
        chosen = [o for o in chosen if o.get(mine) in keys]
    return chosen


def ordered(members: list[dict[str, Any]], sort: Enum) -> list[dict[str, Any]]:
    field, direction = sort.value.rsplit("_", 1)
    key = field.lower()
    return sorted(
        members,
        key=lambda o: (o.get(key) is None, o.get(key) or "", str(o["id"])),
        reverse=direction == "DESC",
    )


def page(members: list[dict[str, Any]], query: Page) -> list[dict[str, Any]]:
    return members[query.offset : query.offset + query.limit]


def found(collection: str, id: uuid.UUID) -> dict[str, Any]:
    obj = STORE[collection].get(id)
    if obj is None:
        raise HTTPException(404, f"no {collection} member has id {id}")
    return obj


def stamped(**fields: Any) -> dict[str, Any]:
    t = now()
    return {"id": uuid.uuid4(), "created": t, "updated": t, **fields}


def state_of(given: Optional[RunStateIn], default: StateKind = StateKind.PENDING) -> dict[str, Any]:
    kind = given.type if given else default
    name = given.name if given and given.name else kind.value.capitalize()
    return {"type": kind, "name": name, "message": given.message if given else None, "timestamp": now()}


def changed(obj: dict[str, Any], change: BaseModel) -> dict[str, Any]:
    for field in change.model_fields_set:
        obj[field] = getattr(change, field)
    obj["updated"] = now()
    return obj


def refuse(field: str, message: str, value: Any) -> None:
    """A body the schema admits but the server cannot serve, refused as FastAPI refuses one the schema does not."""
    raise RequestValidationError([{"type": "value_error", "loc": ("body", field), "msg": message, "input": str(value)}])


def version_of(value: Optional[str]) -> None:
    if value is not None and not VERSION.match(value):
        raise HTTPException(400, f"X-SERVICE-API-VERSION must be MAJOR.MINOR.PATCH, not {value!r}")


# ---- the routes ---------------------------------------------------------------------------------------------------

VersionHeader = Annotated[Optional[str], Header(alias="X-SERVICE-API-VERSION", description="The client's API version")]
LimitQ = Annotated[int, Query(ge=1, le=MAX_LIMIT)]
OffsetQ = Annotated[int, Query(ge=0)]
NotFound = {404: {"model": Problem}}
Conflict = {409: {"model": Problem}}

api = FastAPI(title="Orchard orchestration server", version=API_VERSION, redirect_slashes=False)
router = APIRouter()


API_KEY: Optional[str] = None
bearer = HTTPBearer(auto_error=False, description="Spec section 5: `Authorization: Bearer <API_KEY>`")


def authorized(credentials: Annotated[Optional[HTTPAuthorizationCredentials], Depends(bearer)] = None) -> None:
    """With a key set (`--api-key`), every route asks for it: none is 401, another one 403."""
    if API_KEY is None:
        return
    if credentials is None:
        raise HTTPException(401, "credentials required", headers={"WWW-Authenticate": "Bearer"})
    if credentials.credentials != API_KEY:
        raise HTTPException(403, "these credentials are not accepted")


@api.middleware("http")
async def answer_version(request, call_next):
    response = await call_next(request)
    response.headers["X-SERVICE-API-VERSION"] = API_VERSION
    return response


def literal_segments(template: str) -> int:
    """How specific a path template is: `/flows/filter` (2) is the path `/flows/filter`, not `/flows/{id}` (1)."""
    return sum(1 for seg in template.split("/") if seg and not seg.startswith("{"))


@api.exception_handler(StarletteHTTPException)
async def problem(request: Request, exc: StarletteHTTPException):
    """An error as `{"detail": ...}`; a 405's Allow names every method of the path (Starlette names those of the
    first route that matched it alone: `PUT /flows` would list POST and not GET)."""
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        scope = {**request.scope, "method": "OPTIONS"}
        matching = [r for r in api.router.routes if isinstance(r, APIRoute) and r.matches(scope)[0] != Match.NONE]
        literal = max((literal_segments(r.path) for r in matching), default=0)
        methods = {m for r in matching if literal_segments(r.path) == literal for m in r.methods}
        headers["Allow"] = ", ".join(sorted(methods))
    return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=headers)


def crud(
    collection: str,
    model: type[BaseModel],
    new: type[BaseModel],
    change: type[BaseModel],
    query: type[Page],
    count_query: type[BaseModel],
    make,
) -> None:
    """The routes every collection has: create, list, read, change, delete, filter and count."""
    tag = collection.replace("_", " ")

    @router.post(f"/{collection}", status_code=201, response_model=model, responses=Conflict, tags=[tag],
                 operation_id=f"add_{collection}")
    def create(body: new, x_version: VersionHeader = None):  # type: ignore[valid-type]
        version_of(x_version)
        obj = make(body)
        STORE[collection][obj["id"]] = obj
        return obj

    @router.get(f"/{collection}", response_model=list[model], tags=[tag], operation_id=f"list_{collection}")
    def list_all(limit: LimitQ = DEFAULT_LIMIT, offset: OffsetQ = 0, x_version: VersionHeader = None):
        version_of(x_version)
        return list(STORE[collection].values())[offset : offset + limit]

    @router.post(f"/{collection}/filter", response_model=list[model], tags=[tag], operation_id=f"query_{collection}")
    def filter(body: Annotated[query, Body()] = None, x_version: VersionHeader = None):  # type: ignore[valid-type]
        version_of(x_version)
        body = body or query()
        return page(ordered(select(collection, body), body.sort), body)

    @router.post(f"/{collection}/count", response_model=int, tags=[tag], operation_id=f"count_{collection}")
    def count(body: Annotated[count_query, Body()] = None, x_version: VersionHeader = None):  # type: ignore[valid-type]
        version_of(x_version)
        return len(select(collection, body or count_query()))

    @router.get(f"/{collection}/{{id}}", response_model=model, responses=NotFound, tags=[tag],
                operation_id=f"get_{collection}_member")
    def read(id: uuid.UUID, x_version: VersionHeader = None):
        version_of(x_version)
        return found(collection, id)

    @router.patch(f"/{collection}/{{id}}", response_model=model, responses=NotFound, tags=[tag],
                  operation_id=f"change_{collection}_member")
    def update(id: uuid.UUID, body: change, x_version: VersionHeader = None):  # type: ignore[valid-type]
        version_of(x_version)
        return changed(found(collection, id), body)

    @router.delete(f"/{collection}/{{id}}", status_code=204, response_class=Response, responses=NotFound, tags=[tag],
                   operation_id=f"remove_{collection}_member")
    def delete(id: uuid.UUID, x_version: VersionHeader = None):
        version_of(x_version)
        found(collection, id)
        remove(collection, id)


def remove(collection: str, id: uuid.UUID) -> None:
    """A member goes with what cannot be reached without it: a flow's runs and deployments, a flow run's task runs."""
    STORE[collection].pop(id, None)
    children = {"flows": [("flow_runs", "flow_id"), ("deployments", "flow_id")], "flow_runs": [("task_runs", "flow_run_id")]}
    for child, field in children.get(collection, []):
        for cid in [c["id"] for c in STORE[child].values() if c.get(field) == id]:
            remove(child, cid)


def unique(collection: str, **fields: Any) -> None:
    for o in STORE[collection].values():
        if all(o.get(k) == v for k, v in fields.items()):
            raise HTTPException(409, f"a member of {collection} already has {fields}")


def new_flow(body: NewFlow) -> dict[str, Any]:
    unique("flows", name=body.name)
    return stamped(name=body.name, tags=body.tags)


def run_name() -> str:
    return f"run-{uuid.uuid4().hex[:10]}"


def new_flow_run(body: NewFlowRun) -> dict[str, Any]:
    found("flows", body.flow_id)
    return stamped(
        name=body.name or run_name(),
        flow_id=body.flow_id,
        deployment_id=None,
        tags=body.tags,
        parameters=body.parameters,
        expected_start_time=body.expected_start_time,
        state=state_of(body.state),
    )


def new_task_run(body: NewTaskRun) -> dict[str, Any]:
    if body.flow_run_id is not None:
        found("flow_runs", body.flow_run_id)
    return stamped(
        name=body.name, task_key=body.task_key, flow_run_id=body.flow_run_id, tags=body.tags, state=state_of(body.state)
    )


def new_deployment(body: NewDeployment) -> dict[str, Any]:
    found("flows", body.flow_id)
    unique("deployments", flow_id=body.flow_id, name=body.name)
    return stamped(name=body.name, flow_id=body.flow_id, description=body.description, tags=body.tags, paused=body.paused)


def new_artifact(body: NewArtifact) -> dict[str, Any]:
    if body.flow_run_id is not None:
        found("flow_runs", body.flow_run_id)
    return stamped(key=body.key, type=body.type, description=body.description, data=body.data, flow_run_id=body.flow_run_id)


@router.post("/flow_runs/history", response_model=list[HistoryBin], tags=["flow runs"], operation_id="flow_run_history")
def history(body: HistoryQuery, x_version: VersionHeader = None):
    version_of(x_version)
    step = timedelta(seconds=body.history_interval_seconds)
    if body.history_end < body.history_start:
        refuse("history_end", "history_end is before history_start", body.history_end)
    if (body.history_end - body.history_start) / step > 500:
        refuse("history_interval_seconds", "more than 500 intervals", body.history_interval_seconds)
    runs = select("flow_runs", body)
    bins, start = [], body.history_start
    while start < body.history_end:
        end = min(start + step, body.history_end)
        counts: dict[StateKind, int] = {}
        for r in runs:
            at = r["expected_start_time"] or r["created"]
            if start <= at < end:
                counts[r["state"]["type"]] = counts.get(r["state"]["type"], 0) + 1
        bins.append({"interval_start": start, "interval_end": end,
                     "states": [{"type": k, "count": v} for k, v in counts.items()]})
        start = end
    return bins


crud("flows", Flow, NewFlow, FlowChange, FlowQuery, FlowCountQuery, new_flow)
crud("flow_runs", FlowRun, NewFlowRun, FlowRunChange, FlowRunQuery, FlowRunCountQuery, new_flow_run)
crud("task_runs", TaskRun, NewTaskRun, TaskRunChange, TaskRunQuery, TaskRunCountQuery, new_task_run)
crud("deployments", Deployment, NewDeployment, DeploymentChange, DeploymentQuery, DeploymentCountQuery, new_deployment)
crud("artifacts", Artifact, NewArtifact, ArtifactChange, ArtifactQuery, ArtifactCountQuery, new_artifact)


def set_state(collection: str, id: uuid.UUID, body: StateChange) -> dict[str, Any]:
    """Every move is taken (the spec describes none it refuses), and stamped with the time it was taken."""
    obj = found(collection, id)
    obj["state"] = state_of(body.state)
    obj["updated"] = now()
    return {"status": "ACCEPT", "state": obj["state"]}


@router.post("/flow_runs/{id}/set_state", response_model=StateChangeResult, responses=NotFound, tags=["flow runs"],
             operation_id="move_flow_run")
def set_flow_run_state(id: uuid.UUID, body: StateChange, x_version: VersionHeader = None):
    version_of(x_version)
    return set_state("flow_runs", id, body)


@router.post("/task_runs/{id}/set_state", response_model=StateChangeResult, responses=NotFound, tags=["task runs"],
             operation_id="move_task_run")
def set_task_run_state(id: uuid.UUID, body: StateChange, x_version: VersionHeader = None):
    version_of(x_version)
    return set_state("task_runs", id, body)


@router.post("/deployments/{id}/create_flow_run", status_code=201, response_model=FlowRun, responses=NotFound,
             tags=["deployments"], operation_id="run_deployment")
def create_flow_run(id: uuid.UUID, body: RunFromDeployment, x_version: VersionHeader = None):
    version_of(x_version)
    deployment = found("deployments", id)
    run = stamped(
        name=body.name or run_name(),
        flow_id=deployment["flow_id"],
        deployment_id=id,
        tags=body.tags if body.tags is not None else list(deployment["tags"]),
        parameters=body.parameters,
        expected_start_time=None,
        state=state_of(body.state, StateKind.SCHEDULED),
    )
    STORE["flow_runs"][run["id"]] = run
    return run


VariablePath = Annotated[str, Path(min_length=1, max_length=100, pattern=r"^[a-z0-9_]+$")]


def named_variable(name: str) -> dict[str, Any]:
    obj = VARIABLES.get(name)
    if obj is None:
        raise HTTPException(404, f"no variable is named {name!r}")
    return obj


def chosen_variables(criteria: Optional[VariableCriteria]) -> list[dict[str, Any]]:
    return [v for v in VARIABLES.values() if criteria is None or criteria_match(v, criteria)]


@router.post("/variables/filter", response_model=list[Variable], tags=["variables"], operation_id="query_variables")
def filter_variables(body: Annotated[VariableQuery, Body()] = None, x_version: VersionHeader = None):
    version_of(x_version)
    body = body or VariableQuery()
    members = sorted(chosen_variables(body.variables), key=lambda v: v["name"], reverse=body.sort.value.endswith("DESC"))
    return page(members, body)


@router.post("/variables/count", response_model=int, tags=["variables"], operation_id="count_variables")
def count_variables(body: Annotated[VariableCountQuery, Body()] = None, x_version: VersionHeader = None):
    version_of(x_version)
    return len(chosen_variables((body or VariableCountQuery()).variables))


@router.put("/variables/{name}", response_model=Variable, responses={200: {"model": Variable}}, status_code=201,
            tags=["variables"], operation_id="put_variable")
def put_variable(name: VariablePath, body: VariableValue, response: Response, x_version: VersionHeader = None):
    """Creates the variable (201) or replaces its value and tags (200): spec section 4.1, PUT creates or replaces."""
    version_of(x_version)
    existing = VARIABLES.get(name)
    if existing:
        response.status_code = 200
        existing.update(value=body.value, tags=body.tags, updated=now())
        return existing
    obj = stamped(name=name, value=body.value, tags=body.tags)
    VARIABLES[name] = obj
    return obj


@router.get("/variables/{name}", response_model=Variable, responses=NotFound, tags=["variables"],
            operation_id="get_variable")
def get_variable(name: VariablePath, x_version: VersionHeader = None):
    version_of(x_version)
    return named_variable(name)


@router.delete("/variables/{name}", status_code=204, response_class=Response, responses=NotFound, tags=["variables"],
               operation_id="remove_variable")
def delete_variable(name: VariablePath, x_version: VersionHeader = None):
    version_of(x_version)
    named_variable(name)
    VARIABLES.pop(name)


@router.get("/variables", response_model=list[Variable], tags=["variables"], operation_id="list_variables")
def list_variables(limit: LimitQ = DEFAULT_LIMIT, offset: OffsetQ = 0, x_version: VersionHeader = None):
    version_of(x_version)
    return sorted(VARIABLES.values(), key=lambda v: v["name"])[offset : offset + limit]


api.include_router(router, dependencies=[Depends(authorized)])
root = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
root.mount("/api/v1", api)

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--api-key", help="ask every request for `Authorization: Bearer KEY`")
    args = parser.parse_args()
    API_KEY = args.api_key
    uvicorn.run(root, host="127.0.0.1", port=args.port, log_level="warning")
