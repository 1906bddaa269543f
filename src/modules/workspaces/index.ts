/** What other modules may use from workspaces: import from 'src/modules/workspaces', nothing deeper. */
export { WorkspacesModule } from './workspaces.module';
export { WorkspacesService } from './workspaces.service';
export { MembersService } from './members.service';
export { WORKSPACE_PLANS, type WorkspacePlan } from './workspace.entity';
